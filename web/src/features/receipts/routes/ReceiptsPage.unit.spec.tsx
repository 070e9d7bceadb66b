import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, configure } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { ReceiptsPage } from './ReceiptsPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const receipt = (status: string) => ({ id: 'r1', original_filename: 'a.jpg', upload_date: '2026-11-23T10:00:00Z', extracted_date: null, extracted_amount: status === 'completed' ? 12.5 : null, extracted_merchant: null, extracted_description: null, file_size: 1000, processing_status: status, match_count: 0, created_by_first_name: 'U', created_by_last_name: 'V' });
const show = () => render(<QueryClientProvider client={createQueryClient()}><MemoryRouter><ReceiptsPage /><ToastContainer /></MemoryRouter></QueryClientProvider>);
const asUser = () => useSession.setState({ user: { id: 'u', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c', name: 'Acme', role: 'user' }], currentCompanyId: 'c' });

// The shared machine runs several suites at once: waits allow for a slow jsdom.
configure({ asyncUtilTimeout: 5_000 });
vi.setConfig({ testTimeout: 20_000 });

describe('/receipts list through TanStack Query', () => {
  it('polls while OCR runs and stops once every receipt has settled', async () => {
    asUser();
    const answers = ['processing', 'completed'];
    const get = vi.spyOn(api, 'get').mockImplementation((() => Promise.resolve({ data: { receipts: [receipt(answers.shift() ?? 'completed')], pagination: { pages: 1, total: 1 } } })) as never);
    show();
    await waitFor(() => expect(screen.getByTestId('processing-status').textContent).toBe('processing'));
    await waitFor(() => expect(screen.getByTestId('processing-status').textContent).toBe('completed'), { timeout: 4000 });
    const calls = get.mock.calls.length;
    await new Promise((r) => setTimeout(r, 1800));
    expect(get.mock.calls.length).toBe(calls);
  });

  it('says so when the list cannot load, and shows the empty state', async () => {
    asUser();
    vi.spyOn(api, 'get').mockRejectedValue(new Error('down'));
    show();
    await screen.findByText('Error loading receipts');
    await screen.findByText('No receipts found.');
  });

  it('a refused upload toasts the file name and the server reason, not a bare error', async () => {
    asUser();
    vi.spyOn(api, 'get').mockResolvedValue({ data: { receipts: [], pagination: { pages: 1, total: 0 } } } as never);
    vi.spyOn(api, 'post').mockRejectedValue(Object.assign(new Error('400'), { isAxiosError: true, response: { status: 400, data: { error: 'The file is not a JPEG, PNG or PDF image.' } } }));
    show();
    fireEvent.change(screen.getByTestId('receipt-input'), { target: { files: [new File(['not an image'], 'fake.jpg', { type: 'image/jpeg' })] } });
    expect(await screen.findByText('Not uploaded: fake.jpg: The file is not a JPEG, PNG or PDF image.')).toBeTruthy();
    expect(screen.queryByText('Error uploading receipts')).toBeNull();
  });
});
