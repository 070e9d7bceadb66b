import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { DEFAULT_FILTERS } from './transactions';
import { transactionKeys, useTransactionPage, useTransactionWrites } from './queries';

const tx = { id: 't1', transaction_date: '2024-03-01', external_transaction_id: null, description: 'Shop', amount: -10, sales_tax: null, category_name: null, job_number_name: null, cost_code_name: null, receipt_count: 0, receipts: '', created_by_first_name: null, created_by_last_name: null, revision: 2 };
const page = { transactions: [tx], pagination: { pages: 1, total: 1 } };

function signIn(userId: string, companyId: string) {
  useSession.setState({ initialized: true, loading: false, user: { id: userId, email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: companyId, name: 'Acme', role: 'admin' }], currentCompanyId: companyId });
}

function setUp() {
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const hook = renderHook(() => ({ list: useTransactionPage(1, DEFAULT_FILTERS), writes: useTransactionWrites() }), { wrapper });
  return { client, hook };
}

const listReads = (get: { mock: { calls: unknown[][] } }) => get.mock.calls.filter((c) => c[0] === '/transactions').length;

beforeEach(() => signIn('u1', 'c1'));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('transactions server state', () => {
  it('keys each page by company, person, page and filters, under one key per company and person', () => {
    const key = transactionKeys.page('c1', 'u1', 2, DEFAULT_FILTERS);
    expect(key.slice(0, 3)).toEqual(transactionKeys.all('c1', 'u1'));
    expect(key).not.toEqual(transactionKeys.page('c2', 'u1', 2, DEFAULT_FILTERS));
    expect(key).not.toEqual(transactionKeys.page('c1', 'u2', 2, DEFAULT_FILTERS));
    expect(key).not.toEqual(transactionKeys.page('c1', 'u1', 2, { ...DEFAULT_FILTERS, status: 'matched' }));
    expect(transactionKeys.one('c1', 'u1', 't1').slice(0, 3)).toEqual(transactionKeys.all('c1', 'u1'));
  });

  it('reads the list again after a save (with the revision read) and after a deletion', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValue({ data: page });
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: {} });
    const del = vi.spyOn(api, 'delete').mockResolvedValue({ data: {} });
    const { hook } = setUp();
    await waitFor(() => expect(hook.result.current.list.data?.rows).toHaveLength(1));
    expect(listReads(get)).toBe(1);
    const body = { description: 'Shop', category: 'Fuel', amount: -10, sales_tax: null, job_number: 'J', cost_code: 'C' };
    await act(() => hook.result.current.writes.update.mutateAsync({ id: 't1', body, revision: 2 }));
    expect(put).toHaveBeenCalledWith('/transactions/t1', body, { headers: { 'If-Match': '"2"' } });
    await waitFor(() => expect(listReads(get)).toBe(2));
    await act(() => hook.result.current.writes.remove.mutateAsync('t1'));
    expect(del).toHaveBeenCalledWith('/transactions/t1');
    await waitFor(() => expect(listReads(get)).toBe(3));
  });

  it('does not read the list again when a save is refused', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValue({ data: page });
    vi.spyOn(api, 'put').mockRejectedValue(Object.assign(new Error('x'), { isAxiosError: true, response: { status: 412, data: {} } }));
    const { hook } = setUp();
    await waitFor(() => expect(hook.result.current.list.data?.rows).toHaveLength(1));
    await act(() => expect(hook.result.current.writes.update.mutateAsync({ id: 't1', body: { description: 'x', category: 'x', amount: 1, sales_tax: null, job_number: 'x', cost_code: 'x' } })).rejects.toThrow());
    await new Promise((r) => setTimeout(r, 20));
    expect(listReads(get)).toBe(1);
  });

  it('after a refused save, reads the transaction as it now is and the list again', async () => {
    const get = vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve({ data: url === '/transactions' ? page : { transaction: { ...tx, description: 'Theirs', revision: 3 } } })) as never);
    const { hook } = setUp();
    await waitFor(() => expect(hook.result.current.list.data?.rows).toHaveLength(1));
    let now: { description: string; revision?: number } | undefined;
    await act(async () => {
      now = await hook.result.current.writes.reread('t1');
    });
    expect(now).toMatchObject({ description: 'Theirs', revision: 3 });
    expect(get).toHaveBeenCalledWith('/transactions/t1');
    expect(listReads(get)).toBe(2);
  });

  it('reads another person\'s list afresh instead of showing the last one\'s from the cache', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValue({ data: page });
    const { hook } = setUp();
    await waitFor(() => expect(hook.result.current.list.data?.rows).toHaveLength(1));
    act(() => signIn('u2', 'c1'));
    await waitFor(() => expect(listReads(get)).toBe(2));
  });

  it('reads an empty, failed list when the list cannot load', async () => {
    vi.spyOn(api, 'get').mockRejectedValue(new Error('down'));
    const { hook } = setUp();
    await waitFor(() => expect(hook.result.current.list.failed).toBe(true));
    expect(hook.result.current.list.data).toEqual({ rows: [], pages: 1, total: 0 });
  });
});
