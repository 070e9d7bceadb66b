import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AxiosError, AxiosHeaders } from 'axios';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { ExportsPage } from './ExportsPage';

const types = (admin: boolean) => [
  { id: 'transactions', name: 'Transactions Report', description: 'Every transaction with its receipt status', options: { dateRange: { startDate: '2024-01-02', endDate: '2024-03-30' } } },
  { id: 'receipts', name: 'Receipts Report', description: 'Receipts with OCR data', options: { dateRange: null } },
  { id: 'matches', name: 'Matches Report', description: 'Confirmed and pending matches', options: {} },
  ...(admin ? [{ id: 'analytics', name: 'Analytics Report', description: 'Company analytics', options: {} }] : []),
];
const records = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, transaction_date: `2024-01-${String(i + 1).padStart(2, '0')}`, description: `Shop ${i}`, amount: -(i + 1) }));

function as(role: 'admin' | 'user') {
  useSession.setState({ initialized: true, loading: false, user: { id: 'me', email: 'a@x.com', firstName: 'Ana', lastName: 'Lopez' }, companies: [{ id: 'c', name: 'Acme', role }], currentCompanyId: 'c' });
}
const axiosFailure = (status?: number, code?: string) => {
  const config = { headers: new AxiosHeaders() };
  return new AxiosError('failed', code, config, {}, status ? { status, statusText: '', data: new Blob(['{}']), headers: {}, config } : undefined);
};
function mockGet(role: 'admin' | 'user') {
  return vi.spyOn(api, 'get').mockImplementation((url: string) => {
    if (url === '/exports/options') return Promise.resolve({ data: { reportTypes: types(role === 'admin') } });
    if (url === '/analytics/dashboard') return Promise.resolve({ data: { financial: { totalExpenses: 1234.5, matchedExpenses: 1000, unmatchedExpenses: 234.5, matchRate: 81 }, processing: { totalReceipts: 12, processedReceipts: 11 } } });
    return Promise.reject(new Error(`unexpected GET ${url}`));
  });
}
// The machine is shared and often loaded: waits and tests get room beyond the defaults (1 s, 5 s).
configure({ asyncUtilTimeout: 5_000 });

const show = () => render(<QueryClientProvider client={createQueryClient()}><MemoryRouter><ExportsPage /><ToastContainer /></MemoryRouter></QueryClientProvider>);
const saved: Array<{ name: string; href: string }> = [];

beforeEach(() => {
  saved.length = 0;
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, href: this.href });
  });
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:test/1'), revokeObjectURL: vi.fn() });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('/exports', { timeout: 30_000 }, () => {
  it('shows the report types as a radio group with transactions and PDF chosen, and the content options, preview and analytics for an admin', async () => {
    as('admin');
    mockGet('admin');
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { totalRecords: 57, dateRange: { startDate: '2024-01-01', endDate: '2024-03-31' }, estimatedSize: 48_000, records } });
    show();
    const group = await screen.findByRole('radiogroup', { name: 'Report type' });
    expect(within(group).getAllByRole('radio').map((r) => r.getAttribute('value'))).toEqual(['transactions', 'receipts', 'matches', 'analytics']);
    expect((screen.getByRole('radio', { name: 'Transactions Report' }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByRole('radio', { name: 'PDF' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText('Data from 2024-01-02 to 2024-03-30')).toBeTruthy();
    expect(screen.getByTestId('content-options')).toBeTruthy();
    expect((screen.getByLabelText('Group by') as HTMLSelectElement).value).toBe('date');
    expect([...(screen.getByLabelText('Max pages per receipt') as HTMLSelectElement).options].map((o) => o.text)).toEqual(['All pages', '1 page', '2 pages', '3 pages', '5 pages']);
    await screen.findByTestId('quick-analytics');
    expect(screen.getByTestId('quick-analytics').textContent).toContain('$1,234.50');

    fireEvent.change(screen.getByLabelText('Start date'), { target: { value: '2024-01-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Preview Data' }));
    await screen.findByTestId('export-preview');
    expect(screen.getByTestId('preview-total').textContent).toBe('57');
    expect(screen.getByTestId('preview-range').textContent).toBe('2024-01-01 to 2024-03-31');
    expect(screen.getByTestId('preview-size').textContent).toBe('46.88 KB');
    expect(within(screen.getByRole('table', { name: 'Preview records' })).getAllByRole('row')).toHaveLength(11);
    expect(screen.getByText('Showing the first 10 of 57 records.')).toBeTruthy();
    expect(post).toHaveBeenCalledWith('/exports/preview/transactions', expect.objectContaining({ startDate: '2024-01-01', limit: 10, preview: true, format: 'pdf', groupBy: 'date', includeSummary: true, includeDetails: true }));
  });

  it('a plain user sees no preview, no content options and no analytics', async () => {
    as('user');
    const get = mockGet('user');
    show();
    await screen.findByRole('radiogroup', { name: 'Report type' });
    expect(screen.queryByRole('radio', { name: 'Analytics Report' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Preview Data' })).toBeNull();
    expect(screen.queryByTestId('content-options')).toBeNull();
    expect(get.mock.calls.map((c) => c[0])).not.toContain('/analytics/dashboard');
  });

  it('downloads the report under the Content-Disposition name with progress shown meanwhile', async () => {
    as('user');
    mockGet('user');
    let finish!: (v: unknown) => void;
    const post = vi.spyOn(api, 'post').mockReturnValue(new Promise((r) => (finish = r)));
    show();
    await screen.findByRole('radiogroup', { name: 'Report type' });
    fireEvent.click(screen.getByRole('radio', { name: 'Excel' }));
    fireEvent.click(screen.getByRole('radio', { name: 'Receipts Report' }));
    fireEvent.change(screen.getByLabelText('Report title'), { target: { value: 'March receipts' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate Excel Report' }));
    expect(await screen.findByRole('progressbar', { name: 'Report progress' })).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Generating Excel report...' }) as HTMLButtonElement).disabled).toBe(true);
    expect(post.mock.calls[0]![0]).toBe('/exports/excel/receipts');
    expect(post.mock.calls[0]![1]).toMatchObject({ title: 'March receipts', includeMatched: true, includeUnmatched: true });
    expect(post.mock.calls[0]![2]).toMatchObject({ responseType: 'blob' });
    finish({ data: new Blob(['PK']), headers: { 'content-disposition': 'attachment; filename="Acme receipts.xlsx"' } });
    await screen.findByText('Downloaded Acme receipts.xlsx (2 Bytes)');
    expect(saved).toEqual([{ name: 'Acme receipts.xlsx', href: 'blob:test/1' }]);
    expect(screen.queryByRole('progressbar', { name: 'Report progress' })).toBeNull();
  });

  it('names the file report.pdf when the server gives no name', async () => {
    as('user');
    mockGet('user');
    vi.spyOn(api, 'post').mockResolvedValue({ data: new Blob(['%PDF']), headers: {} });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Generate PDF Report' }));
    await waitFor(() => expect(saved).toEqual([{ name: 'report.pdf', href: 'blob:test/1' }]));
  });

  it('refuses to send neither matched nor unmatched, and maps a 403 and a time-out to the spec messages', async () => {
    as('user');
    mockGet('user');
    const post = vi.spyOn(api, 'post').mockRejectedValueOnce(axiosFailure(403)).mockRejectedValueOnce(axiosFailure(undefined, AxiosError.ECONNABORTED));
    show();
    await screen.findByRole('radiogroup', { name: 'Report type' });
    fireEvent.click(screen.getByLabelText('Matched'));
    fireEvent.click(screen.getByLabelText('Unmatched'));
    fireEvent.click(screen.getByRole('button', { name: 'Generate PDF Report' }));
    expect(screen.getByTestId('export-problem').textContent).toBe('Please select at least one option: Matched or Unmatched');
    expect(post).not.toHaveBeenCalled();
    fireEvent.click(screen.getByLabelText('Matched'));
    fireEvent.change(screen.getByLabelText('Start date'), { target: { value: '2024-05-02' } });
    fireEvent.change(screen.getByLabelText('End date'), { target: { value: '2024-05-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate PDF Report' }));
    expect(screen.getByTestId('export-problem').textContent).toBe('The start date must be on or before the end date');
    fireEvent.change(screen.getByLabelText('End date'), { target: { value: '2024-05-31' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate PDF Report' }));
    await waitFor(() => expect(screen.getByTestId('export-problem').textContent).toBe('You do not have permission to export reports.'));
    fireEvent.click(screen.getByRole('button', { name: 'Generate PDF Report' }));
    await waitFor(() => expect(screen.getByTestId('export-problem').textContent).toBe('Export timeout. Please try with a smaller date range.'));
    expect(saved).toEqual([]);
  });

  it('an admin whose preview fails reads the spec message; failing analytics leave their card out silently', async () => {
    as('admin');
    vi.spyOn(api, 'get').mockImplementation((url: string) => (url === '/exports/options' ? Promise.resolve({ data: { reportTypes: types(true) } }) : Promise.reject(axiosFailure(500))));
    vi.spyOn(api, 'post').mockRejectedValue(axiosFailure(500));
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Preview Data' }));
    expect(await screen.findByText('Failed to generate preview', { selector: '.form-error' })).toBeTruthy();
    expect(screen.queryByTestId('export-preview')).toBeNull();
    expect(screen.queryByTestId('quick-analytics')).toBeNull();
    fireEvent.click(screen.getByRole('radio', { name: 'Matches Report' }));
    expect(screen.queryByText('Failed to generate preview', { selector: '.form-error' })).toBeNull();
    expect(screen.queryByLabelText('Matched')).toBeNull();
  });

  it('says when the options cannot be loaded and offers to try again', async () => {
    as('user');
    vi.spyOn(api, 'get').mockRejectedValueOnce(axiosFailure(500)).mockResolvedValue({ data: { reportTypes: types(false) } });
    show();
    expect(await screen.findByText('Failed to load export options', { selector: '.form-error' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('radiogroup', { name: 'Report type' })).toBeTruthy();
  });
});
