import { z } from 'zod';
import { api } from './api-client';

/** `auditor`: reads the whole company, changes nothing (the server refuses every write). */
export const RoleSchema = z.enum(['user', 'manager', 'admin', 'auditor']);
export type Role = z.infer<typeof RoleSchema>;

export const CompanyRefSchema = z.object({ id: z.string(), name: z.string(), role: RoleSchema });
export type CompanyRef = z.infer<typeof CompanyRefSchema>;

export const CompanySchema = CompanyRefSchema.extend({
  domain: z.string().nullable().optional(),
  planType: z.string().optional(),
  userCount: z.number().optional(),
  transactionCount: z.number().optional(),
  receiptCount: z.number().optional(),
  matchRate: z.number().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  /** The revision this copy shows: sent back in If-Match when saving the company's details. */
  revision: z.number().optional(),
});
export type Company = z.infer<typeof CompanySchema>;

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  emailVerified: z.boolean().optional(),
  lastLogin: z.string().nullable().optional(),
  memberSince: z.string().optional(),
  currentRole: RoleSchema.nullable().optional(),
  currentCompany: CompanyRefSchema.nullable().optional(),
  companies: z.array(CompanyRefSchema).optional(),
});
export type User = z.infer<typeof UserSchema>;

const AuthResponse = z.object({
  user: UserSchema,
  companies: z.array(CompanySchema).optional(),
  company: CompanySchema.optional(),
  accessToken: z.string(),
  refreshToken: z.string(),
});
export type AuthResponse = z.infer<typeof AuthResponse>;

export interface RegisterInput {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  companyName: string;
}

export const authApi = {
  async login(email: string, password: string): Promise<AuthResponse> {
    return AuthResponse.parse((await api.post('/auth/login', { email, password })).data);
  },
  async register(input: RegisterInput): Promise<AuthResponse> {
    return AuthResponse.parse((await api.post('/auth/register', input)).data);
  },
  async logout(refreshToken: string | null): Promise<void> {
    await api.post('/auth/logout', refreshToken ? { refreshToken } : {});
  },
  async logoutAll(): Promise<void> {
    await api.post('/auth/logout-all');
  },
  async companies(): Promise<Company[]> {
    return z.object({ companies: z.array(CompanySchema) }).parse((await api.get('/companies')).data).companies;
  },
  async profile(): Promise<User> {
    return z.object({ user: UserSchema }).parse((await api.get('/auth/profile')).data).user;
  },
  async updateProfile(firstName: string, lastName: string): Promise<User | null> {
    const data = (await api.put('/auth/profile', { firstName, lastName })).data as { user?: unknown };
    const parsed = UserSchema.safeParse(data.user);
    return parsed.success ? parsed.data : null;
  },
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await api.put('/auth/password', { currentPassword, newPassword });
  },
};
