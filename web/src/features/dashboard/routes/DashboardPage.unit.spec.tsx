import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { amountsAgree } from '../components/Lists';
import { DashboardPage } from './DashboardPage';

beforeAll(() => {
  // recharts sizes its charts with a ResizeObserver, which jsdom lacks.
  globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const match = (i: number) => ({ id: `m${i}`, original_filename: `r${i}.jpg`, description: `SHOP ${i}`, transaction_date: '2024-01-02', transaction_amount: -10, extracted_amount: 10, match_confidence: 60 + i, user_confirmed: false });
const ANALYTICS = {
  financial: { totalExpenses: 1234.5, matchedExpenses: 234.5, unmatchedExpenses: 1000, matchRate: 19 },
  processing: { processingRate: 75, matchRate: 50, avgAmount: 42.25, totalReceipts: 4, processedReceipts: 3, matchedReceipts: 2, confirmedMatches: 1, receiptsThisWeek: 4 },
  missingFields: { incompleteTransactions: 3, completionRate: 40, missingDescription: 0, missingCategory: 3, missingJobNumber: 2, missingCostCode: 1, missingDescriptionPercentage: 0, missingCategoryPercentage: 60, missingJobNumberPercentage: 40, missingCostCodePercentage: 20 },
  activity: [{ type: 'receipt', user_name: 'Ada Admin', description: 'uploaded a.jpg', timestamp: new Date(Date.now() - 3 * 3_600_000).toISOString() }],
  categories: [{ category: 'Fuel', total_amount: -300 }, { category: 'Travel', total_amount: -500 }, { category: 'Meals', total_amount: -20 }, { category: 'Office', total_amount: -90 }, { category: 'Misc', total_amount: -1 }],
};
const STATS = { total_matches: 4, confirmed_matches: 1, pending_matches: 12, unmatched_receipts: 2, unmatched_transactions: 7 };

function asRole(role: 'admin' | 'user') {
  useSession.setState({ initialized: true, loading: false, user: { id: `me-${role}`, email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role }], currentCompanyId: 'c' });
}

function serve(over: Record<string, () => Promise<unknown>> = {}) {
  const calls: string[] = [];
  vi.spyOn(api, 'get').mockImplementation(((url: string) => {
    calls.push(url);
    if (over[url]) return over[url]!();
    if (url === '/matches/pending') return Promise.resolve({ data: Array.from({ length: 12 }, (_, i) => match(i)) });
    if (url === '/matches/stats') return Promise.resolve({ data: STATS });
    if (url === '/analytics/dashboard') return Promise.resolve({ data: ANALYTICS });
    if (url === '/transactions') return Promise.resolve({ data: { transactions: [{ id: 't1', transaction_date: '2024-01-02', description: 'SHELL', amount: -40, receipt_count: 1 }], pagination: { pages: 1, total: 1 } } });
    if (url === '/receipts') return Promise.resolve({ data: { receipts: [{ id: 'r1', original_filename: 'a.jpg', extracted_amount: 40, processing_status: 'failed', match_count: 0 }], pagination: { pages: 1, total: 1 } } });
    if (url === '/health/details') return Promise.resolve({ data: { status: 'ok', version: '1.0.0', profile: 'embedded', projections: { position: 10, head: 12, lag: 2 } } });
    return Promise.reject(new Error(url));
  }) as never);
  return calls;
}

const show = (path = '/dashboard') =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}><DashboardPage /><ToastContainer /></MemoryRouter>
    </QueryClientProvider>,
  );
const card = (id: string) => screen.getByTestId(id);

describe('/dashboard', () => {
  it('compares amounts to the cent, with the card showing expenses as negatives', () => {
    expect(amountsAgree({ extracted_amount: 12.5, transaction_amount: -12.5 })).toBe(true);
    expect(amountsAgree({ extracted_amount: 12.5, transaction_amount: -12.51 })).toBe(false);
    expect(amountsAgree({ extracted_amount: null, transaction_amount: -1 })).toBe(false);
  });

  it('admin overview: the cards from stats and analytics, the Data Quality alert, the admin cards, 10 pending matches', async () => {
    asRole('admin');
    serve();
    show();
    expect(await screen.findByText('Dashboard (Admin View)')).toBeTruthy();
    await waitFor(() => expect(card('card-total-matches-value').textContent).toBe('4'));
    expect(card('card-total-matches-sub').textContent).toBe('25% confirmed');
    await waitFor(() => expect(card('card-processing-efficiency-value').textContent).toBe('75%'));
    expect(card('card-pending-review-value').textContent).toBe('12');
    expect(card('card-pending-review-sub').textContent).toBe('2 unmatched receipts');
    const bar = within(card('card-pending-review')).getByRole('progressbar') as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([10, 10]);
    expect(card('card-system-health-value').textContent).toBe('warning');
    expect(card('card-system-health-sub').textContent).toBe('Score 65/100');
    const alert = screen.getByRole('region', { name: 'Data Quality' });
    expect(alert.textContent).toContain('completion rate 40%');
    expect(within(alert).getByTestId('dq-missingCategory').textContent).toBe('Missing Category: 3 (60%)');
    expect(within(alert).getByRole('link').getAttribute('href')).toBe('/transactions');
    expect(card('card-total-expenses-value').textContent).toBe('$1,234.50');
    expect(card('card-matched-expenses-value').textContent).toBe('$234.50');
    expect(card('card-processing-rate-value').textContent).toBe('75%');
    expect(card('card-avg-receipt-value').textContent).toBe('$42.25');
    await screen.findByText('r0.jpg');
    expect(screen.getByRole('table', { name: 'Pending matches' }).querySelectorAll('tbody tr')).toHaveLength(10);
    expect(screen.getByRole('link', { name: 'Company Settings' })).toBeTruthy();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Overview', 'Analytics', 'User Activity', 'Financial', 'System Health']);
  });

  it('admin tabs: measured auto-match success and response time, activity with relative times, top 4 categories', async () => {
    asRole('admin');
    serve();
    show();
    await waitFor(() => expect(card('card-processing-efficiency-value').textContent).toBe('75%'));
    const tab = (name: string) => fireEvent.click(screen.getByRole('tab', { name }));
    tab('Analytics');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe('dashboard-tab-analytics');
    expect(card('an-auto-match-success-value').textContent).toBe('25%');
    expect(card('an-auto-match-success-sub').textContent).toBe('measured: 1 of 4 matches confirmed');
    tab('User Activity');
    expect(screen.getByTestId('activity-item').textContent).toContain('3 hours ago');
    tab('Financial');
    expect(screen.getAllByTestId('top-category').map((li) => li.textContent)).toEqual(['Travel $500.00', 'Fuel $300.00', 'Office $90.00', 'Meals $20.00']);
    expect(screen.getByRole('table', { name: 'Spending by category data' }).querySelectorAll('tbody tr')).toHaveLength(5);
    tab('System Health');
    expect(card('sh-score-value').textContent).toBe('65/100');
    expect(card('sh-response-value').textContent).toMatch(/^\d+ ms$/);
    await waitFor(() => expect(card('sh-lag-value').textContent).toBe('2 events'));
  });

  it('admins refetch every 10 minutes, users do not', async () => {
    for (const role of ['admin', 'user'] as const) {
      asRole(role);
      serve();
      const client = createQueryClient();
      render(<QueryClientProvider client={client}><MemoryRouter><DashboardPage /></MemoryRouter></QueryClientProvider>);
      await waitFor(() => expect(client.getQueryCache().findAll({ queryKey: ['dashboard'] }).length).toBeGreaterThanOrEqual(3));
      const intervals = client.getQueryCache().findAll({ queryKey: ['dashboard'] }).flatMap((q) => q.observers.map((o) => o.options.refetchInterval));
      expect(new Set(intervals)).toEqual(new Set([role === 'admin' ? 600_000 : false]));
      cleanup();
      vi.restoreAllMocks();
    }
  });

  it('Refresh fetches every figure again', async () => {
    asRole('admin');
    const calls = serve();
    show();
    await screen.findByText('r0.jpg');
    const count = (url: string) => calls.filter((c) => c === url).length;
    const before = ['/matches/pending', '/matches/stats', '/analytics/dashboard'].map(count);
    await waitFor(() => expect((screen.getByRole('button', { name: 'Refresh' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(['/matches/pending', '/matches/stats', '/analytics/dashboard'].map(count)).toEqual(before.map((n) => n + 1)));
  });

  it('arrow keys move between the tabs and take the focus along', async () => {
    asRole('admin');
    serve();
    show();
    const first = await screen.findByRole('tab', { name: 'Overview' });
    first.focus();
    fireEvent.keyDown(first, { key: 'ArrowLeft' });
    const last = screen.getByRole('tab', { name: 'System Health' });
    expect(last.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(last);
  });

  it('a user sees no tabs and no admin cards, and an analytics failure empties its sections without a toast', async () => {
    asRole('user');
    serve({ '/analytics/dashboard': () => Promise.reject(Object.assign(new Error('boom'), { response: { status: 500 } })) });
    show('/dashboard?tab=financial');
    expect(await screen.findByText('Dashboard')).toBeTruthy();
    await waitFor(() => expect(card('card-total-matches-value').textContent).toBe('4'));
    await waitFor(() => expect(card('card-processing-efficiency-value').textContent).toBe('no data'));
    expect(screen.queryByRole('tab')).toBeNull();
    expect(screen.queryByTestId('admin-cards')).toBeNull();
    expect(screen.queryByTestId('card-system-health')).toBeNull();
    expect(screen.queryByRole('region', { name: 'Data Quality' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Company Settings' })).toBeNull();
    expect(screen.queryByText('Error loading dashboard data')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Spending over time' })).toBeTruthy();
  });

  it('an admin of a company without receipts gets no health verdict; an auto-match that finds nothing is no green success', async () => {
    asRole('admin');
    const empty = { ...ANALYTICS, processing: { ...ANALYTICS.processing, processingRate: 0, matchRate: 0, totalReceipts: 0, processedReceipts: 0, matchedReceipts: 0 } };
    serve({ '/analytics/dashboard': () => Promise.resolve({ data: empty }) });
    vi.spyOn(api, 'post').mockResolvedValue({ data: { matched: 0 } });
    show();
    await waitFor(() => expect(card('card-system-health-value').textContent).toBe('Not judged yet'));
    expect(card('card-system-health-sub').textContent).toBe('judged once receipts are uploaded');
    fireEvent.click(screen.getByRole('button', { name: 'Auto-Match Receipts' }));
    const notice = await screen.findByText('Auto-match found no new match');
    expect(notice.closest('.Toastify__toast')?.className).toContain('Toastify__toast--info');
  });

  it('runs auto-match at threshold 70, toasts the count and loads the lists again', async () => {
    asRole('user');
    const calls = serve();
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { matched: 3 } });
    show();
    await screen.findByText('r0.jpg');
    const before = calls.filter((c) => c === '/matches/pending').length;
    fireEvent.click(screen.getByRole('button', { name: 'Auto-Match Receipts' }));
    await screen.findByText('Auto-matched 3 receipts!');
    expect(post).toHaveBeenCalledWith('/matches/auto-match', { threshold: 70 });
    await waitFor(() => expect(calls.filter((c) => c === '/matches/pending').length).toBe(before + 1));
  });

  it('toasts once when the lists cannot load', async () => {
    asRole('user');
    serve({ '/matches/pending': () => Promise.reject(new Error('down')) });
    show();
    expect(await screen.findAllByText('Error loading dashboard data')).toHaveLength(1);
    expect(screen.getByText('No matches waiting for review.')).toBeTruthy();
    expect(screen.queryByText('Loading...')).toBeNull();
  });
});
