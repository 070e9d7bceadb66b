import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { MatchesPage } from './MatchesPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const match = (i: number, confirmed: boolean) => ({ id: `m${i}`, receipt_id: `r${i}`, transaction_id: `t${i}`, original_filename: `r${i}.jpg`, extracted_merchant: 'Shop', extracted_date: '2024-01-01', extracted_amount: 10, description: `SHOP ${i}`, transaction_date: '2024-01-02', transaction_amount: -10, match_confidence: 85, user_confirmed: confirmed, evidence: { amountDiffCents: 0, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: ['Same amount'] } });

const show = () => render(<QueryClientProvider client={createQueryClient()}><MatchesPage /><ToastContainer /></QueryClientProvider>);

describe('/matches through TanStack Query', () => {
  it('confirms a pending match, toasts, and loads the lists again', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'user' }], currentCompanyId: 'c' });
    let confirmed = false;
    const get = vi.spyOn(api, 'get').mockImplementation((() => Promise.resolve({ data: [match(1, confirmed), match(2, true)] })) as never);
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
    expect(get).toHaveBeenCalledTimes(2);
  });

  it('says so when the matches cannot be loaded, and shows empty lists', async () => {
    useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'user' }], currentCompanyId: 'c' });
    vi.spyOn(api, 'get').mockRejectedValueOnce(new Error('down'));
    show();
    await screen.findByText('Error loading matches');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Pending (0)' })).toBeTruthy());
  });
});
