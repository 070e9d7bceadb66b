import type { Role } from '../../lib/auth-api';

/** Spec section 6: who sees and does what on /company-settings. */
export const companyRules = (role: Role | null) => ({
  canEditCompany: role === 'admin',
  canSeeTeam: role === 'admin' || role === 'manager' || role === 'auditor',
  canInvite: role === 'admin',
  canManageMembers: role === 'admin',
});

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateInvite(email: string): string | null {
  if (!email.trim()) return 'Email address is required';
  if (!SIMPLE_EMAIL.test(email.trim())) return 'Please enter a valid email address';
  return null;
}

/** A member's own row offers no role change or removal; the messages are the spec's. */
export function memberActionProblem(action: 'role' | 'remove', selfId: string | undefined, memberId: string): string | null {
  if (selfId !== memberId) return null;
  return action === 'role' ? 'You cannot change your own role' : 'You cannot remove yourself from the company';
}
