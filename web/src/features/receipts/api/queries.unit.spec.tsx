import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { DEFAULT_RECEIPT_FILTERS } from './receipts';
import { receiptKeys, useReceipt, useReceiptList, useReceiptWrites } from './queries';

const receipt = { id: 'r1', original_filename: 'a.jpg', upload_date: '2026-11-23T10:00:00Z', extracted_date: null, extracted_amount: 12.5, extracted_merchant: 'Cafe', extracted_description: null, file_size: 1000, processing_status: 'completed', match_count: 0, created_by_first_name: 'U', created_by_last_name: 'V', revision: 2 };

beforeEach(() => useSession.setState({ initialized: true, loading: false, user: { id: 'u1', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c1', name: 'Acme', role: 'user' }], currentCompanyId: 'c1' }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function setUp() {
  const get = vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve({ data: url === '/receipts' ? { receipts: [receipt], pagination: { pages: 1, total: 1 } } : { receipt } })) as never);
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const hook = renderHook(() => ({ list: useReceiptList(1, DEFAULT_RECEIPT_FILTERS), one: useReceipt('r1'), writes: useReceiptWrites() }), { wrapper });
  const reads = (url: string) => get.mock.calls.filter((c) => c[0] === url).length;
  return { client, hook, reads };
}

describe('receipts server state', () => {
  it('keeps the list pages, one receipt and its files under one key per company and person', () => {
    const all = receiptKeys.all('c1', 'u1');
    expect(receiptKeys.page('c1', 'u1', 1, DEFAULT_RECEIPT_FILTERS).slice(0, 4)).toEqual(receiptKeys.pages('c1', 'u1'));
    expect(receiptKeys.pages('c1', 'u1').slice(0, 3)).toEqual(all);
    expect(receiptKeys.one('c1', 'u1', 'r1').slice(0, 3)).toEqual(all);
    expect(receiptKeys.file('c1', 'u1', 'r1', 'view').slice(0, 3)).toEqual(all);
    expect(receiptKeys.all('c2', 'u1')).not.toEqual(all);
  });

  it('a saved correction shows the answer in the details and reads the lists again, not the receipt', async () => {
    const { hook, reads } = setUp();
    await waitFor(() => expect(hook.result.current.one.data?.extracted_merchant).toBe('Cafe'));
    await waitFor(() => expect(reads('/receipts')).toBe(1));
    const answer = { ...receipt, extracted_merchant: 'Café', corrected_fields: ['merchant'], revision: 3 };
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: { receipt: answer } });
    await act(() => hook.result.current.writes.update.mutateAsync({ id: 'r1', body: { extracted_merchant: 'Café' }, revision: 2 }));
    expect(put).toHaveBeenCalledWith('/receipts/r1', { extracted_merchant: 'Café' }, { headers: { 'If-Match': '"2"' } });
    await waitFor(() => expect(hook.result.current.one.data?.extracted_merchant).toBe('Café'));
    await waitFor(() => expect(reads('/receipts')).toBe(2));
    expect(reads('/receipts/r1')).toBe(1);
  });

  it('reads the lists again after a deletion, a re-read and a match; after uploads only when asked', async () => {
    const { hook, reads } = setUp();
    await waitFor(() => expect(reads('/receipts')).toBe(1));
    vi.spyOn(api, 'delete').mockResolvedValue({ data: {} });
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: {} });
    await act(() => hook.result.current.writes.remove.mutateAsync('r1'));
    await waitFor(() => expect(reads('/receipts')).toBe(2));
    await act(() => hook.result.current.writes.reprocess.mutateAsync('r1'));
    await waitFor(() => expect(reads('/receipts')).toBe(3));
    await act(() => hook.result.current.writes.matchTo.mutateAsync({ id: 'r1', transactionId: 't1' }));
    expect(post).toHaveBeenLastCalledWith('/matches', { receiptId: 'r1', transactionId: 't1' });
    await waitFor(() => expect(reads('/receipts')).toBe(4));
    // No presigned upload here: the multipart fallback takes the file.
    post.mockImplementation(((url: string) => (url === '/receipts/presign' ? Promise.reject(new Error('no presign')) : Promise.resolve({ data: { duplicate: false } }))) as never);
    await act(() => hook.result.current.writes.upload.mutateAsync({ file: new File(['x'], 'b.jpg', { type: 'image/jpeg' }), onProgress: () => undefined }));
    await new Promise((r) => setTimeout(r, 20));
    expect(reads('/receipts')).toBe(4);
    await act(() => hook.result.current.writes.refresh());
    expect(reads('/receipts')).toBe(5);
  });
});
