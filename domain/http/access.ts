import type { Role } from '@paperlink/domain';

export interface Membership {
  companyId: string;
  userId: string;
  role: Role;
}
