import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { profileKeys, useProfile, useProfileWrites } from './queries';

const me = { id: 'u1', email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez', emailVerified: true };

beforeEach(() => useSession.setState({ initialized: true, loading: false, user: me, companies: [], currentCompanyId: null }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function setUp() {
  vi.spyOn(api, 'get').mockResolvedValue({ data: { user: me } });
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  return renderHook(() => ({ profile: useProfile(), writes: useProfileWrites() }), { wrapper });
}

describe('profile server state', () => {
  it('keys the profile by person', () => {
    expect(profileKeys.me('u1')).not.toEqual(profileKeys.me('u2'));
  });

  it('new names become the profile shown and the session\'s user', async () => {
    const hook = setUp();
    await waitFor(() => expect(hook.result.current.profile.data?.firstName).toBe('Ana'));
    vi.spyOn(api, 'put').mockResolvedValue({ data: { user: { ...me, firstName: 'Anna' } } });
    await act(() => hook.result.current.writes.update.mutateAsync({ firstName: 'Anna', lastName: 'Lopez' }));
    await waitFor(() => expect(hook.result.current.profile.data?.firstName).toBe('Anna'));
    expect(useSession.getState().user?.firstName).toBe('Anna');
  });

  it('an answer without the user keeps the rest of the profile with the names sent', async () => {
    const hook = setUp();
    await waitFor(() => expect(hook.result.current.profile.data?.firstName).toBe('Ana'));
    vi.spyOn(api, 'put').mockResolvedValue({ data: { success: true } });
    await act(() => hook.result.current.writes.update.mutateAsync({ firstName: 'Anna', lastName: 'Lopes' }));
    await waitFor(() => expect(hook.result.current.profile.data).toMatchObject({ id: 'u1', email: 'ana@example.com', firstName: 'Anna', lastName: 'Lopes', emailVerified: true }));
  });
});
