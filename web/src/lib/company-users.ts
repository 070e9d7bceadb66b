import { z } from 'zod';
import { api } from './api-client';

/** One entry of the admin user filter (spec section 3, Company user: id, fullName, role). */
export const FilterUserSchema = z.object({ id: z.string(), fullName: z.string(), role: z.string() });
export type FilterUser = z.infer<typeof FilterUserSchema>;

/** GET /companies/current/users/filter: the people an admin can filter lists by (transactions, receipts). */
export async function companyUsersForFilter(): Promise<FilterUser[]> {
  return z.object({ users: z.array(FilterUserSchema) }).parse((await api.get('/companies/current/users/filter')).data).users;
}
