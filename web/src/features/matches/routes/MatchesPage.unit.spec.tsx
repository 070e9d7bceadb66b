import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, configure } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { MemoryRouter } from 'react-router-dom';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { MatchesPage } from './MatchesPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

// jsdom has no object URLs: each thumbnail blob gets one named after its bytes.
const urls = new Map<string, Blob>();
URL.createObjectURL = (blob: Blob) => {
  const url = `blob:thumb-${urls.size}`;
  urls.set(url, blob);
  return url;
};
URL.revokeObjectURL = (url: string) => void urls.delete(url);

const match = (i: number, confirmed: boolean) => ({ id: `m${i}`, receipt_id: `r${i}`, transaction_id: `t${i}`, original_filename: `r${i}.jpg`, extracted_merchant: 'Shop', extracted_date: '2024-01-01', extracted_amount: 10, description: `SHOP ${i}`, transaction_date: '2024-01-02', transaction_amount: -10, match_confidence: 85, user_confirmed: confirmed, evidence: { amountDiffCents: 0, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: ['Same amount'] } });

const show = (url = '/') => render(<QueryClientProvider client={createQueryClient()}><MemoryRouter initialEntries={[url]}><MatchesPage /><ToastContainer /></MemoryRouter></QueryClientProvider>);

/** A server holding `list`: GET /matches pages by status, limit and offset; /matches/stats counts. */
function server(list: () => ReturnType<typeof match>[]) {
  return vi.spyOn(api, 'get').mockImplementation(((url: string, config?: { params?: { status?: string; limit?: number; offset?: number } }) => {
    const thumb = /^\/receipts\/([^/]+)\/thumbnail$/.exec(url);
    if (thumb) return Promise.resolve({ data: new Blob([`jpeg of ${thumb[1]}`], { type: 'image/jpeg' }) });
    if (url === '/matches/stats') {
      const all = list();
      return Promise.resolve({ data: { total_matches: all.length, pending_matches: all.filter((m) => !m.user_confirmed).length, confirmed_matches: all.filter((m) => m.user_confirmed).length, unmatched_receipts: 0, unmatched_transactions: 0 } });
    }
    const p = config?.params ?? {};
    const rows = list().filter((m) => (p.status === 'confirmed' ? m.user_confirmed : !m.user_confirmed));
    return Promise.resolve({ data: rows.slice(p.offset ?? 0, (p.offset ?? 0) + (p.limit ?? rows.length)) });
  }) as never);
}

// The shared machine runs several suites at once: waits allow for a slow jsdom.
configure({ asyncUtilTimeout: 5_000 });
vi.setConfig({ testTimeout: 20_000 });

describe('/matches through TanStack Query', () => {
  it('confirms a pending match, toasts, and loads the lists again', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'user' }], currentCompanyId: 'c' });
    let confirmed = false;
    const get = server(() => [match(1, confirmed), match(2, true)]);
    const put = vi.spyOn(api, 'put').mockImplementation((() => {
      confirmed = true;
      return Promise.resolve({ data: {} });
    }) as never);
    show();
    expect(await screen.findByRole('tab', { name: 'Pending (1)' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Confirm r1.jpg' }));
    await screen.findByText('Match confirmed');
    expect(put).toHaveBeenCalledWith('/matches/m1/confirm');
    await screen.findByRole('tab', { name: 'Confirmed (2)' });
    expect(get).toHaveBeenCalledWith('/matches', { params: { status: 'pending', limit: 50, offset: 0 } });
  });

  it('shows each receipt\'s thumbnail beside its card line, larger on a click', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'admin' }], currentCompanyId: 'c' });
    const get = server(() => [match(1, false), match(2, false)]);
    show();
    const img = await screen.findByRole('img', { name: 'Receipt r2.jpg' });
    const row = screen.getByTestId('match-r2.jpg');
    expect(row.contains(img)).toBe(true);
    expect(row.textContent).toContain('SHOP 2');
    expect(get).toHaveBeenCalledWith('/receipts/r2/thumbnail', { responseType: 'blob' });
    expect(await urls.get(img.getAttribute('src')!)!.text()).toBe('jpeg of r2');
    const button = screen.getByRole('button', { name: 'Larger image of r2.jpg' });
    fireEvent.click(button);
    expect(button.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'Smaller image of r2.jpg' })).toBe(button);
  });

  it('reads one page of a list at a time, with the count of the whole list', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'admin' }], currentCompanyId: 'c' });
    const list = Array.from({ length: 120 }, (_, i) => match(i, i >= 110));
    const get = server(() => list);
    show();
    expect(await screen.findByRole('tab', { name: 'Pending (110)' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Confirmed (10)' })).toBeTruthy();
    expect(await screen.findByTestId('page-info')).toHaveProperty('textContent', 'Page 1 of 3 (110 total)');
    expect(screen.getAllByRole('button', { name: /^Confirm r/ })).toHaveLength(50);
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('button', { name: 'Confirm r50.jpg' });
    expect(get).toHaveBeenCalledWith('/matches', { params: { status: 'pending', limit: 50, offset: 50 } });
    expect(screen.queryByRole('button', { name: 'Confirm r0.jpg' })).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: 'Confirmed (10)' }));
    await screen.findByRole('button', { name: 'Delete match r110.jpg' });
    expect(screen.getByTestId('page-info').textContent).toBe('Page 1 of 1 (10 total)');
  });

  it('says so when the matches cannot be loaded, and shows empty lists', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'user' }], currentCompanyId: 'c' });
    vi.spyOn(api, 'get').mockRejectedValueOnce(new Error('down'));
    show();
    await screen.findByText('Error loading matches');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Pending (0)' })).toBeTruthy());
  });
});
