import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within, configure } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { MemoryRouter } from 'react-router-dom';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { TransactionsPage } from './TransactionsPage';

const tx = (i: number, over: Record<string, unknown> = {}) => ({
  id: `t${i}`, transaction_date: '2024-03-0' + ((i % 9) + 1), external_transaction_id: i === 1 ? 'EXT-1' : null, description: `Shop ${i}`, amount: -10 * i, sales_tax: null,
  category_name: 'Fuel', category_id: 'c2', job_number_name: 'J-1', cost_code_name: '03-100', receipt_count: i === 2 ? 1 : 0, receipts: i === 2 ? 'r.jpg' : '',
  created_by_first_name: 'Ana', created_by_last_name: 'Lopez', ...over,
});
const categories = [{ id: 'c1', name: 'PROJECT MANAGER' }, { id: 'c2', name: 'Fuel' }, { id: 'c3', name: 'Travel' }];
const costCodes = [
  { id: 'k1', name: '01-3114', category_id: 'c1', category_name: 'PROJECT MANAGER' },
  { id: 'k2', name: '01-3115', category_id: 'c1', category_name: 'PROJECT MANAGER' },
  { id: 'k3', name: '03-100', category_id: 'c2', category_name: 'Fuel' },
  { id: 'k4', name: '03-200', category_id: 'c2', category_name: 'Fuel' },
  { id: 'k5', name: '04-100', category_id: 'c3', category_name: 'Travel' },
];

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function as(role: 'admin' | 'user') {
  useSession.setState({ initialized: true, loading: false, user: { id: 'me', email: 'a@x.com', firstName: 'Ana', lastName: 'Lopez' }, companies: [{ id: 'c', name: 'Acme', role }], currentCompanyId: 'c' });
}

function answer(list: (params: Record<string, unknown>) => unknown) {
  return vi.spyOn(api, 'get').mockImplementation(((url: string, config?: { params?: Record<string, unknown> }) => {
    if (url === '/transactions') return Promise.resolve({ data: list(config?.params ?? {}) });
    if (url === '/masterdata/categories') return Promise.resolve({ data: categories });
    if (url === '/masterdata/job_numbers') return Promise.resolve({ data: [{ id: 'j1', name: 'J-1' }, { id: 'j2', name: 'J-2' }] });
    if (url === '/masterdata/cost_codes') return Promise.resolve({ data: costCodes });
    if (url === '/matches') return Promise.resolve({ data: config?.params?.transactionId === 't2' && config.params.status === 'confirmed' ? [{ receipt_id: 'r9', original_filename: 'r.jpg' }] : [] });
    const thumb = /^\/receipts\/([^/]+)\/thumbnail$/.exec(url);
    if (thumb) return Promise.resolve({ data: new Blob([`jpeg of ${thumb[1]}`], { type: 'image/jpeg' }) });
    if (url === '/companies/current/users/filter') return Promise.resolve({ data: { users: [{ id: 'u2', fullName: 'Bo Berg', role: 'user' }] } });
    return Promise.reject(new Error(url));
  }) as never);
}

const show = (url = '/') => render(<QueryClientProvider client={createQueryClient()}><MemoryRouter initialEntries={[url]}><TransactionsPage /><ToastContainer /></MemoryRouter></QueryClientProvider>);

// jsdom has no object URLs: each blob gets one, kept to read back.
const urls = new Map<string, Blob>();
URL.createObjectURL = (blob: Blob) => {
  const url = `blob:thumb-${urls.size}`;
  urls.set(url, blob);
  return url;
};
URL.revokeObjectURL = (url: string) => void urls.delete(url);

// The shared machine runs several suites at once: waits allow for a slow jsdom.
configure({ asyncUtilTimeout: 5_000 });
vi.setConfig({ testTimeout: 20_000 });

describe('/transactions', () => {
  it('searches on the server from the box, kept in the URL; a new search starts at page 1', async () => {
    as('user');
    const get = answer((p) => ({ transactions: p.q === 'heron' ? [tx(7, { description: 'BLUE HERON CAFE' })] : [tx(1), tx(2)], pagination: { pages: p.q ? 1 : 3, total: p.q ? 1 : 102 } }));
    show('/transactions?q=heron');
    await screen.findByText('BLUE HERON CAFE');
    const box = screen.getByRole('searchbox', { name: 'Search transactions' }) as HTMLInputElement;
    expect(box.value).toBe('heron');
    expect(get).toHaveBeenCalledWith('/transactions', { params: expect.objectContaining({ q: 'heron', page: 1 }) });
    fireEvent.change(box, { target: { value: '' } });
    fireEvent.submit(box.closest('form')!);
    await screen.findByText('Shop 1');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(get).toHaveBeenCalledWith('/transactions', { params: expect.objectContaining({ page: 2 }) }));
    fireEvent.change(box, { target: { value: 'nothing here' } });
    await waitFor(() => expect(get).toHaveBeenCalledWith('/transactions', { params: expect.objectContaining({ q: 'nothing here', page: 1 }) }));
  });

  it('expands a matched row to the images of its receipts', async () => {
    as('user');
    const get = answer(() => ({ transactions: [tx(1), tx(2)], pagination: { pages: 1, total: 2 } }));
    show();
    await screen.findByText('Shop 2');
    expect(within(screen.getByTestId('tx-t1')).queryByRole('button', { name: /receipts of/ })).toBeNull();
    const toggle = screen.getByRole('button', { name: 'Show the receipts of Shop 2' });
    fireEvent.click(toggle);
    const img = await screen.findByRole('img', { name: 'Receipt r.jpg' });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(document.getElementById(toggle.getAttribute('aria-controls')!)!.contains(img)).toBe(true);
    expect(get).toHaveBeenCalledWith('/matches', { params: { transactionId: 't2', status: 'confirmed' } });
    expect(await urls.get(img.getAttribute('src')!)!.text()).toBe('jpeg of r9');
    fireEvent.click(screen.getByRole('button', { name: 'Hide the receipts of Shop 2' }));
    expect(screen.queryByRole('img', { name: 'Receipt r.jpg' })).toBeNull();
  });

  it('shows the columns, derived receipt status, N/A ids and the pagination text', async () => {
    as('admin');
    answer(() => ({ transactions: [tx(1), tx(2)], pagination: { pages: 3, total: 102 } }));
    show();
    await screen.findByText('Shop 1');
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Date', 'Transaction ID', 'Sales Tax', 'Amount', 'Job Number', 'Cost Code', 'Cost Code Name', 'Description', 'Receipt Status', 'Receipts', 'Created By', 'Actions']);
    const row1 = screen.getByTestId('tx-t1');
    expect(within(row1).getByText('EXT-1')).toBeTruthy();
    expect(within(row1).getByText('Unmatched')).toBeTruthy();
    expect(within(screen.getByTestId('tx-t2')).getByText('N/A')).toBeTruthy();
    expect(within(screen.getByTestId('tx-t2')).getByText('Matched')).toBeTruthy();
    expect(screen.getByTestId('page-info').textContent).toBe('Page 1 of 3 (102 total)');
  });

  it('hides the filter panel, Created By and Delete from non-admins', async () => {
    as('user');
    answer(() => ({ transactions: [tx(1)], pagination: { pages: 1, total: 1 } }));
    show();
    await screen.findByText('Shop 1');
    expect(screen.queryByRole('button', { name: 'Show Filters' })).toBeNull();
    expect(screen.queryByText('Created By')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete Shop 1' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Edit Shop 1' })).toBeTruthy();
  });

  it('applies the linkage rules while editing and sends the spec payload', async () => {
    as('user');
    answer(() => ({ transactions: [tx(1)], pagination: { pages: 1, total: 1 } }));
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: {} });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Shop 1' }));
    const category = screen.getByLabelText('Category') as HTMLSelectElement;
    const costCode = screen.getByLabelText('Cost code') as HTMLSelectElement;
    await waitFor(() => expect(within(costCode).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select cost code', '03-100', '03-200']));
    fireEvent.change(category, { target: { value: 'PROJECT MANAGER' } });
    expect(costCode.value).toBe('01-3114');
    fireEvent.change(category, { target: { value: 'Travel' } });
    expect(costCode.value).toBe('04-100');
    fireEvent.change(category, { target: { value: '' } });
    fireEvent.change(costCode, { target: { value: '03-200' } });
    expect(category.value).toBe('Fuel');
    fireEvent.change(category, { target: { value: '' } });
    fireEvent.change(costCode, { target: { value: '01-3114' } });
    expect(category.value).toBe('PROJECT MANAGER');
    fireEvent.change(screen.getByLabelText('Amount'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findAllByText('Please enter a valid amount')).length).toBeGreaterThan(0);
    expect(put).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Amount'), { target: { value: '-12.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Transaction updated successfully');
    expect(put).toHaveBeenCalledWith('/transactions/t1', { description: 'Shop 1', category: 'PROJECT MANAGER', amount: -12.5, sales_tax: null, job_number: 'J-1', cost_code: '01-3114' });
  });

  it('resets to page 1 when a filter changes and shows the empty state with the user-filter hint', async () => {
    as('admin');
    const get = answer((p) => (p.userId ? { transactions: [], pagination: { pages: 0, total: 0 } } : { transactions: [tx(1)], pagination: { pages: 2, total: 51 } }));
    show();
    await screen.findByText('Shop 1');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(get).toHaveBeenCalledWith('/transactions', { params: expect.objectContaining({ page: 2 }) }));
    fireEvent.click(screen.getByRole('button', { name: 'Show Filters' }));
    await screen.findByRole('option', { name: 'Bo Berg (user)' });
    fireEvent.change(screen.getByLabelText('User'), { target: { value: 'u2' } });
    await screen.findByText('No transactions found.');
    expect(screen.getByText('Try adjusting your filters or selecting a different user.')).toBeTruthy();
    expect(get).toHaveBeenLastCalledWith('/transactions', { params: { page: 1, limit: 50, userId: 'u2', sortBy: 'transaction_date', sortOrder: 'desc' } });
  });

  it('asks before deleting and reports the outcome', async () => {
    as('admin');
    answer(() => ({ transactions: [tx(1)], pagination: { pages: 1, total: 1 } }));
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    const del = vi.spyOn(api, 'delete').mockResolvedValue({ data: {} });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Shop 1' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete the transaction "Shop 1"?');
    expect(del).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Delete Shop 1' }));
    await screen.findByText('Transaction deleted successfully');
    expect(del).toHaveBeenCalledWith('/transactions/t1');
  });
});
