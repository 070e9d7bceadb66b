import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { masterKeys, useMasterList } from '../../../lib/masterdata-queries';
import { useSession } from '../../../lib/session';
import { useMasterWrites } from './queries';

beforeEach(() => useSession.setState({ initialized: true, loading: false, user: { id: 'u1', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c1', name: 'Acme', role: 'admin' }], currentCompanyId: 'c1' }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('master data server state', () => {
  it('keys each list by company under one key the whole company shares', () => {
    expect(masterKeys.list('c1', 'cost_codes').slice(0, 2)).toEqual(masterKeys.all('c1'));
    expect(masterKeys.list('c1', 'cost_codes')).not.toEqual(masterKeys.list('c2', 'cost_codes'));
  });

  it('a change to one list reads every list of the company again (an import may add categories)', async () => {
    let categories = [{ id: 'k1', name: 'Fuel' }];
    const get = vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve({ data: url === '/masterdata/categories' ? categories : [{ id: 'c1', name: '01-100', category_id: 'k1', category_name: 'Fuel' }] })) as never);
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { summary: { imported: 1, skipped: 0, errors: 0, totalRows: 1 }, details: { duplicates: [], errors: [] } } });
    const client = createQueryClient();
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    const hook = renderHook(() => ({ categories: useMasterList('categories'), codes: useMasterList('cost_codes'), writes: useMasterWrites('cost_codes') }), { wrapper });
    await waitFor(() => expect(hook.result.current.categories.data).toHaveLength(1));
    await waitFor(() => expect(hook.result.current.codes.data).toHaveLength(1));
    categories = [...categories, { id: 'k2', name: 'Travel' }];
    await act(() => hook.result.current.writes.importCsv.mutateAsync(new File(['Name,Category\n02-100,Travel\n'], 'codes.csv', { type: 'text/csv' })));
    expect(post).toHaveBeenCalledWith('/masterdata/cost_codes/import', expect.any(FormData));
    await waitFor(() => expect(hook.result.current.categories.data).toHaveLength(2));
    expect(get.mock.calls.filter((c) => c[0] === '/masterdata/cost_codes')).toHaveLength(2);
  });

  it('a refused change reads nothing again', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValue({ data: [] });
    vi.spyOn(api, 'delete').mockRejectedValue(new Error('in use'));
    const client = createQueryClient();
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    const hook = renderHook(() => ({ list: useMasterList('job_numbers'), writes: useMasterWrites('job_numbers') }), { wrapper });
    await waitFor(() => expect(hook.result.current.list.data).toEqual([]));
    await act(() => expect(hook.result.current.writes.remove.mutateAsync('j1')).rejects.toThrow('in use'));
    expect(get).toHaveBeenCalledTimes(1);
  });
});
