import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { companyUserKeys, useCompanyUsersForFilter } from '../../../lib/company-users';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { companyKeys, useCompany, useCompanyWrites, useMembers } from './queries';

const company = { id: 'c1', name: 'Acme', role: 'admin', revision: 3 };
const members = [{ id: 'u2', firstName: 'Bo', lastName: 'Berg', email: 'bo@example.com', role: 'user' }];

beforeEach(() => useSession.setState({ initialized: true, loading: false, user: { id: 'me', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c1', name: 'Acme', role: 'admin' }], currentCompanyId: 'c1' }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function setUp() {
  const get = vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve({
    data: url === '/companies/current' ? { company } : url === '/companies/current/users' ? { users: members } : { users: [{ id: 'u2', fullName: 'Bo Berg', role: 'user' }] },
  })) as never);
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const hook = renderHook(() => ({ company: useCompany(), members: useMembers(true), filter: useCompanyUsersForFilter(true), writes: useCompanyWrites() }), { wrapper });
  const reads = (url: string) => get.mock.calls.filter((c) => c[0] === url).length;
  return { hook, reads };
}

describe('company server state', () => {
  it('keeps the company, its team and the user filter under one key per company', () => {
    expect(companyKeys.current('c1').slice(0, 2)).toEqual(companyKeys.all('c1'));
    expect(companyKeys.members('c1').slice(0, 2)).toEqual(companyKeys.all('c1'));
    expect(companyUserKeys.filter('c1').slice(0, 2)).toEqual(companyKeys.all('c1'));
    expect(companyKeys.all('c2')).not.toEqual(companyKeys.all('c1'));
  });

  it('a change to the team reads the team and the user filter again', async () => {
    const { hook, reads } = setUp();
    await waitFor(() => expect(hook.result.current.members.data).toHaveLength(1));
    await waitFor(() => expect(hook.result.current.filter).toHaveLength(1));
    vi.spyOn(api, 'put').mockResolvedValue({ data: {} });
    await act(() => hook.result.current.writes.changeRole.mutateAsync({ userId: 'u2', role: 'manager' }));
    await waitFor(() => expect(reads('/companies/current/users')).toBe(2));
    await waitFor(() => expect(reads('/companies/current/users/filter')).toBe(2));
  });

  it('a saved company is the one shown, with the revision the next save sends', async () => {
    const { hook, reads } = setUp();
    await waitFor(() => expect(hook.result.current.company.data?.revision).toBe(3));
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: { company: { ...company, name: 'Acme Two', revision: 4 } } });
    await act(() => hook.result.current.writes.update.mutateAsync({ name: 'Acme Two', domain: null, revision: 3 }));
    expect(put).toHaveBeenCalledWith('/companies/current', { name: 'Acme Two', domain: null }, { headers: { 'If-Match': '"3"' } });
    await waitFor(() => expect(hook.result.current.company.data).toMatchObject({ name: 'Acme Two', revision: 4 }));
    expect(reads('/companies/current')).toBe(1);
  });
});
