import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { CompanySchema, RoleSchema, type Role } from '../../../lib/auth-api';
import { ifMatch } from '../../../lib/stale';

export const MemberSchema = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  role: RoleSchema,
  joinedAt: z.string().optional(),
  lastLogin: z.string().nullable().optional(),
});
export type Member = z.infer<typeof MemberSchema>;

export const companyApi = {
  async current() {
    return z.object({ company: CompanySchema }).parse((await api.get('/companies/current')).data).company;
  },
  /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
  async update(name: string, domain: string | null, revision?: number) {
    return z.object({ company: CompanySchema }).parse((await api.put('/companies/current', { name, domain }, ...ifMatch(revision))).data).company;
  },
  async users() {
    return z.object({ users: z.array(MemberSchema) }).parse((await api.get('/companies/current/users')).data).users;
  },
  async invite(email: string, role: Role) {
    await api.post('/companies/current/invite', { email, role });
  },
  async changeRole(userId: string, role: Role) {
    await api.put(`/companies/current/users/${encodeURIComponent(userId)}/role`, { role });
  },
  async remove(userId: string) {
    await api.delete(`/companies/current/users/${encodeURIComponent(userId)}`);
  },
};
