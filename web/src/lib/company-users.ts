import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from './api-client';
import { useQueryScope } from './query-scope';

/** One entry of the admin user filter (spec section 3, Company user: id, fullName, role). */
export const FilterUserSchema = z.object({ id: z.string(), fullName: z.string(), role: z.string() });
export type FilterUser = z.infer<typeof FilterUserSchema>;

/** GET /companies/current/users/filter: the people an admin can filter lists by (transactions, receipts). */
export async function companyUsersForFilter(): Promise<FilterUser[]> {
  return z.object({ users: z.array(FilterUserSchema) }).parse((await api.get('/companies/current/users/filter')).data).users;
}

/** The filter's people, per company; the company screen invalidates `['company', companyId]` when members change. */
export const companyUserKeys = {
  filter: (companyId: string | null) => ['company', companyId, 'users', 'filter'] as const,
};

const NONE: FilterUser[] = [];

/** The people to filter by, for those who see the whole company; none (quietly) when they cannot be read. */
export function useCompanyUsersForFilter(enabled: boolean): FilterUser[] {
  const { companyId } = useQueryScope();
  const q = useQuery({ queryKey: companyUserKeys.filter(companyId), queryFn: companyUsersForFilter, enabled });
  return q.data ?? NONE;
}
