import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { useSession } from '../../auth/stores/session';
import { amountsAgree, DashboardPage } from './DashboardPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const match = (i: number) => ({ id: `m${i}`, receipt_id: `r${i}`, transaction_id: `t${i}`, original_filename: `r${i}.jpg`, extracted_merchant: 'Shop', extracted_date: '2024-01-01', extracted_amount: 10, description: `SHOP ${i}`, transaction_date: '2024-01-02', transaction_amount: -10, match_confidence: 60 + i, user_confirmed: false, evidence: { amountDiffCents: 0, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: ['Same amount'] } });

describe('/dashboard', () => {
  it('compares amounts to the cent, with the card showing expenses as negatives', () => {
    expect(amountsAgree({ extracted_amount: 12.5, transaction_amount: -12.5 })).toBe(true);
    expect(amountsAgree({ extracted_amount: 12.5, transaction_amount: -12.51 })).toBe(false);
    expect(amountsAgree({ extracted_amount: null, transaction_amount: -1 })).toBe(false);
  });

  it('shows at most 10 pending matches, and runs auto-match at threshold 70', async () => {
    useSession.setState({ initialized: true, loading: false, user: { id: 'me', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'admin' }], currentCompanyId: 'c' });
    vi.spyOn(api, 'get').mockImplementation(((url: string) => {
      if (url === '/matches/pending') return Promise.resolve({ data: Array.from({ length: 12 }, (_, i) => match(i)) });
      if (url === '/transactions') return Promise.resolve({ data: { transactions: [], pagination: { pages: 1, total: 0 } } });
      if (url === '/receipts') return Promise.resolve({ data: { receipts: [], pagination: { pages: 1, total: 0 } } });
      return Promise.reject(new Error(url));
    }) as never);
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { matched: 3 } });
    render(<MemoryRouter><DashboardPage /><ToastContainer /></MemoryRouter>);
    expect(await screen.findByText('Dashboard (Admin View)')).toBeTruthy();
    await screen.findByText('r0.jpg');
    expect(screen.getByRole('table', { name: 'Pending matches' }).querySelectorAll('tbody tr')).toHaveLength(10);
    fireEvent.click(screen.getByRole('button', { name: 'Auto-Match Receipts' }));
    await screen.findByText('Auto-matched 3 receipts!');
    expect(post).toHaveBeenCalledWith('/matches/auto-match', { threshold: 70 });
  });
});
