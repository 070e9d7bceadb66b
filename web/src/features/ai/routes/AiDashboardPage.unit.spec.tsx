import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { AxiosError, AxiosHeaders } from 'axios';
import { api } from '../../../lib/api-client';
import { AiDashboardPage } from './AiDashboardPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const stats = { categorization: { total_predictions: 12, feedback_count: 4, correct_count: 3, accuracy: 0.75 }, duplicates: { total_groups: 3, pending_groups: 1, prevented_duplicates: 2 } };
const calendar = { calendars: [], trips: [], totals: { events: 0, trips: 0, correlatedTransactions: 0, correlatedSpend: 0 } };
const patterns = [{ id: 'p1', description: 'PROCORE TECH', category_name: 'SOFTWARE', frequency: 'monthly', occurrence_count: 7, amount: -375, last_match: '2025-07-09', next_expected_date: '2025-08-09' }];

function show(path: string) {
  const router = createMemoryRouter([{ path: '/ai-dashboard', element: <AiDashboardPage /> }], { initialEntries: [path] });
  render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}><RouterProvider router={router} /><ToastContainer /></QueryClientProvider>);
  return router;
}

function answer(overrides: Record<string, () => Promise<unknown>> = {}) {
  return vi.spyOn(api, 'get').mockImplementation(((url: string) => {
    if (overrides[url]) return overrides[url]!();
    if (url === '/ai/dashboard/stats') return Promise.resolve({ data: stats });
    if (url === '/ai/calendar/insights') return Promise.resolve({ data: calendar });
    if (url === '/ai/matching/recurring/patterns') return Promise.resolve({ data: { patterns } });
    if (url === '/ai/duplicates/groups') return Promise.resolve({ data: { groups: [] } });
    return Promise.reject(new Error(url));
  }) as never);
}

describe('/ai-dashboard', () => {
  it('has the three tabs of the spec, opens on Overview with the figures, and keeps the tab in the address', async () => {
    answer();
    const router = show('/ai-dashboard');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Overview', 'Duplicate Detection', 'Recurring Patterns']);
    expect((await screen.findByTestId('stat-predictions')).textContent).toBe('12');
    expect(screen.getByTestId('stat-accuracy').textContent).toBe('75%');
    expect(screen.getByTestId('stat-groups').textContent).toBe('3');
    expect(screen.getByTestId('stat-prevented').textContent).toBe('2');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe('ai-dashboard-tab-overview');

    fireEvent.click(screen.getByRole('tab', { name: 'Recurring Patterns' }));
    const table = await screen.findByRole('table', { name: 'Recurring patterns' });
    expect(table.textContent).toContain('PROCORE TECH');
    expect(table.textContent).toContain('2025-08-09');
    expect(router.state.location.search).toBe('?tab=recurring');
  });

  it('opens the tab the address names, and says "No feedback yet" before any feedback', async () => {
    answer({ '/ai/dashboard/stats': () => Promise.resolve({ data: { ...stats, categorization: { total_predictions: 2, accuracy: null } } }) });
    show('/ai-dashboard?tab=duplicates');
    expect(screen.getByRole('tab', { name: 'Duplicate Detection' }).getAttribute('aria-selected')).toBe('true');
    await screen.findByText('No duplicate groups found.');
    fireEvent.click(screen.getByRole('tab', { name: 'Overview' }));
    expect((await screen.findByTestId('stat-accuracy')).textContent).toBe('No feedback yet');
  });

  it("shows the spec's load error as a toast, and the server's reason on the page", async () => {
    const headers = new AxiosHeaders();
    const refused = new AxiosError('x', '409', { headers } as never, null, { status: 409, statusText: 'x', headers, config: { headers } as never, data: { error: "The AI features are switched off in this company's settings." } });
    answer({ '/ai/matching/recurring/patterns': () => Promise.reject(refused) });
    show('/ai-dashboard?tab=recurring');
    await screen.findByText('Error loading AI dashboard data', { selector: '.Toastify *' });
    expect(screen.getByRole('tabpanel').querySelector('[role=alert]')!.textContent).toBe("Error loading AI dashboard data: The AI features are switched off in this company's settings.");
  });
});
