import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { ImportPage } from './ImportPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const details = Array.from({ length: 25 }, (_, i) => ({ row: i + 2, description: `Row ${i + 2}`, providedName: i % 2 ? 'Bo Berg' : null, assignedTo: 'u1', assignedToName: i % 2 ? 'Bo Berg' : 'Ana Lopez', status: i % 2 ? 'name_matched' : 'no_names_provided' }));
const result = { imported: 24, skipped: 1, total: 25, userMatching: { matched: 12, unmatched: 0, adminAssigned: 13, details } };
const show = () => render(<QueryClientProvider client={createQueryClient()}><MemoryRouter><ImportPage /><ToastContainer /></MemoryRouter></QueryClientProvider>);
const drop = (file: File) => fireEvent.change(screen.getByTestId('csv-input'), { target: { files: [file] } });

describe('/import', () => {
  it('imports a file and shows the result cards and the first 20 assignment rows', async () => {
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: result });
    show();
    expect(screen.getByText('Expected columns')).toBeTruthy();
    drop(new File(['Transaction Date,Description,Amount\n'], 'statement.csv', { type: 'text/csv' }));
    await screen.findByTestId('import-result');
    expect(screen.getByTestId('imported-count').textContent).toBe('24');
    expect(screen.getByTestId('skipped-count').textContent).toBe('1');
    expect(screen.getByTestId('total-count').textContent).toBe('25');
    expect(screen.getAllByRole('row').filter((r) => r.closest('table')?.getAttribute('aria-label') === 'User assignment details')).toHaveLength(21);
    expect(screen.getByText('Showing the first 20 of 25 rows.')).toBeTruthy();
    expect(await screen.findByText('Import completed! 24 transactions imported')).toBeTruthy();
    expect(post.mock.calls[0]![0]).toBe('/transactions/import');
    expect((post.mock.calls[0]![1] as FormData).get('csvFile')).toBeInstanceOf(File);
    fireEvent.click(screen.getByRole('button', { name: 'Import Another File' }));
    expect(screen.getByLabelText('CSV file drop zone')).toBeTruthy();
  });

  it('refuses a file that is not a CSV without calling the server', async () => {
    const post = vi.spyOn(api, 'post');
    show();
    drop(new File(['x'], 'statement.xlsx'));
    await screen.findByText('Please select a CSV file');
    expect(post).not.toHaveBeenCalled();
  });

  it('asks for the columns when the server cannot recognise the header, then sends the mapping', async () => {
    const needs = { header: ['When', 'What', 'How much'], preview: [['2024-01-02', 'Coffee', '-3.50']], suggested: { date: 0, dateOrder: 'auto', amountSign: 'expense-negative' }, headerKey: 'when|what|how much' };
    const post = vi.spyOn(api, 'post')
      .mockRejectedValueOnce(Object.assign(new Error('422'), { isAxiosError: true, response: { status: 422, data: { error: 'x', code: 'mapping_required', details: needs } } }))
      .mockResolvedValueOnce({ data: { ...result, userMatching: { ...result.userMatching, details: [] } } });
    show();
    drop(new File(['When,What,How much\n'], 'odd.csv'));
    await screen.findByRole('form', { name: 'Column mapping' });
    expect(screen.getByRole('table', { name: 'File preview' }).textContent).toContain('Coffee');
    fireEvent.click(screen.getByRole('button', { name: 'Import with this mapping' }));
    expect(screen.getByText('Choose the column that holds the description.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('Amount (signed)'), { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import with this mapping' }));
    await screen.findByTestId('import-result');
    await waitFor(() => expect(post).toHaveBeenCalledTimes(2));
    expect(JSON.parse(String((post.mock.calls[1]![1] as FormData).get('mapping')))).toEqual({ date: 0, description: 1, amount: 2, dateOrder: 'auto', amountSign: 'expense-negative' });
  });

  it('shows the server reason with the file name, in the page and in the toast, when the import fails', async () => {
    vi.spyOn(api, 'post').mockRejectedValue(Object.assign(new Error('422'), { isAxiosError: true, response: { status: 422, data: { error: 'This file has a header row but no transactions.', code: 'header_only' } } }));
    show();
    drop(new File(['Date,Description,Amount\n'], 'empty.csv'));
    await waitFor(() => expect(screen.getAllByText('empty.csv: This file has a header row but no transactions.')).toHaveLength(2));
    expect(screen.queryByText('Error importing transactions')).toBeNull();
  });

  it('a file with nothing new gets a plain notice, not a green success', async () => {
    vi.spyOn(api, 'post').mockResolvedValue({ data: { ...result, imported: 0, skipped: 25, alreadyImported: true } });
    show();
    drop(new File(['Transaction Date,Description,Amount\n'], 'again.csv', { type: 'text/csv' }));
    const notice = await screen.findByText('Nothing new: this file was imported before');
    expect(notice.closest('.Toastify__toast')?.className).toContain('Toastify__toast--info');
    expect(screen.queryByText(/Import completed!/)).toBeNull();
  });
});
