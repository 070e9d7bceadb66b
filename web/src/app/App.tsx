import { lazy, useEffect } from 'react';
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { QueryClientProvider } from '@tanstack/react-query';
import 'react-toastify/dist/ReactToastify.css';
import { onAuthFailure } from '../lib/api-client';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { RequireAuth } from '../components/RequireAuth';
import { AuthPage } from '../features/auth/routes/AuthPage';
import { useSession } from '../lib/session';
import { queryClient } from '../lib/query-client';
import { Layout } from './Layout';

const ProfilePage = lazy(() => import('../features/profile/routes/ProfilePage').then((m) => ({ default: m.ProfilePage })));
const CompanySettingsPage = lazy(() => import('../features/company/routes/CompanySettingsPage').then((m) => ({ default: m.CompanySettingsPage })));
const TransactionsPage = lazy(() => import('./TransactionsRoute'));
const ImportPage = lazy(() => import('../features/import/routes/ImportPage'));
const MasterDataPage = lazy(() => import('../features/masterdata/routes/MasterDataPage'));
const ReceiptsPage = lazy(() => import('./HistoryRoutes').then((m) => ({ default: m.ReceiptsRoute })));
const MatchesPage = lazy(() => import('./HistoryRoutes').then((m) => ({ default: m.MatchesRoute })));
const ReviewQueuePage = lazy(() => import('../features/matches/routes/ReviewQueuePage'));
const DashboardPage = lazy(() => import('../features/dashboard/routes/DashboardPage'));
const ExportsPage = lazy(() => import('../features/exports/routes/ExportsPage'));
const AiDashboardPage = lazy(() => import('../features/ai/routes/AiDashboardPage'));
const SettingsPage = lazy(() => import('../features/settings/routes/SettingsPage'));
const LlmTestPage = lazy(() => import('../features/llm-test/routes/LlmTestPage'));
const SystemPage = lazy(() => import('../features/system/routes/SystemPage').then((m) => ({ default: m.SystemPage })));

/** Spec section 2: toasts top-right, light, closing after 5000 ms. */
export const TOAST_OPTIONS = { position: 'top-right', theme: 'light', autoClose: 5000 } as const;

/** Spec section 2, the route table. */
export const routes: RouteObject[] = [
  { path: '/auth', element: <AuthPage /> },
  {
    element: (
      <RequireAuth>
        <Layout />
      </RequireAuth>
    ),
    children: [
      { path: '/', element: <Navigate to="/dashboard" replace /> },
      { path: '/dashboard', element: <DashboardPage /> },
      { path: '/transactions', element: <TransactionsPage /> },
      { path: '/receipts', element: <ReceiptsPage /> },
      { path: '/matches', element: <MatchesPage /> },
      { path: '/review', element: <ReviewQueuePage /> },
      { path: '/import', element: <ImportPage /> },
      { path: '/exports', element: <ExportsPage /> },
      { path: '/profile', element: <ProfilePage /> },
      { path: '/company-settings', element: <CompanySettingsPage /> },
      { path: '/master-data-settings', element: <MasterDataPage /> },
      { path: '/settings', element: <SettingsPage /> },
      { path: '/ai-dashboard', element: <AiDashboardPage /> },
      { path: '/llm-test', element: <LlmTestPage /> },
      { path: '/system', element: <SystemPage /> },
      { path: '*', element: <Navigate to="/dashboard" replace /> },
    ],
  },
];

const router = createBrowserRouter(routes);

export function App() {
  const initialize = useSession((s) => s.initialize);
  useEffect(() => {
    onAuthFailure(() => {
      useSession.setState({ user: null, companies: [], currentCompanyId: null });
      void router.navigate('/auth', { state: { from: window.location.pathname } });
    });
    void initialize();
    // Another person may sign in next in this tab: nothing cached for the last one survives a sign-out.
    return useSession.subscribe((s, prev) => {
      if (prev.user && !s.user) queryClient.clear();
    });
  }, [initialize]);
  return (
    <ErrorBoundary>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
      <ToastContainer {...TOAST_OPTIONS} newestOnTop closeOnClick pauseOnFocusLoss={false} />
    </ErrorBoundary>
  );
}
