import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useSession } from '../lib/session';
import { Spinner } from './Spinner';

/** The route guard: 'Loading...' while the session starts, /auth (remembering where to return) when signed out. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { initialized, loading, user } = useSession();
  const location = useLocation();
  if (!initialized || (loading && !user)) return <Spinner label="Loading..." />;
  if (!user) return <Navigate to="/auth" replace state={{ from: `${location.pathname}${location.search}` }} />;
  return <>{children}</>;
}
