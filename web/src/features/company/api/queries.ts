import axios from 'axios';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Role } from '../../../lib/auth-api';
import { useErrorToast, useQueryScope } from '../../../lib/query-scope';
import { companyApi } from './company';

/**
 * This feature's server state, per company. The members' filter list (lib/company-users.ts)
 * sits under the same `all` key, so a change to the team reloads it too.
 */
export const companyKeys = {
  all: (companyId: string | null) => ['company', companyId] as const,
  current: (companyId: string | null) => [...companyKeys.all(companyId), 'current'] as const,
  members: (companyId: string | null) => [...companyKeys.all(companyId), 'members'] as const,
};

const refused = (e: unknown) => axios.isAxiosError(e) && e.response?.status === 403;

/** The current company (GET /companies/current); a failure toasts 'Failed to load company information'. */
export function useCompany() {
  const { companyId } = useQueryScope();
  const q = useQuery({ queryKey: companyKeys.current(companyId), queryFn: companyApi.current, staleTime: 0 });
  useErrorToast(q, 'Failed to load company information');
  return q;
}

/** The team (GET /companies/current/users) for those who may see it; a refusal (403) stays quiet. */
export function useMembers(enabled: boolean) {
  const { companyId } = useQueryScope();
  const q = useQuery({ queryKey: companyKeys.members(companyId), queryFn: companyApi.users, enabled, staleTime: 0 });
  useErrorToast(q, 'Failed to load company users', (e) => !refused(e));
  return q;
}

/** Writes to the company and its team; a change to the team reloads it once the server has answered. */
export function useCompanyWrites() {
  const client = useQueryClient();
  const { companyId } = useQueryScope();
  const reloadTeam = () => void client.invalidateQueries({ queryKey: companyKeys.all(companyId) });
  return {
    update: useMutation({
      /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
      mutationFn: ({ name, domain, revision }: { name: string; domain: string | null; revision?: number }) => companyApi.update(name, domain, revision),
      // The answer is the company as it now is (with its new revision).
      onSuccess: (company) => client.setQueryData(companyKeys.current(companyId), company),
    }),
    invite: useMutation({ mutationFn: ({ email, role }: { email: string; role: Role }) => companyApi.invite(email, role), onSuccess: reloadTeam }),
    changeRole: useMutation({ mutationFn: ({ userId, role }: { userId: string; role: Role }) => companyApi.changeRole(userId, role), onSuccess: reloadTeam }),
    remove: useMutation({ mutationFn: (userId: string) => companyApi.remove(userId), onSuccess: reloadTeam }),
  };
}
