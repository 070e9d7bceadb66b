import { describe, expect, it } from 'vitest';
import { companyRules, memberActionProblem, validateInvite } from './rules';

describe('company settings rules (spec section 6)', () => {
  it('lets admins edit, invite and manage; managers see the team; users neither', () => {
    expect(companyRules('admin')).toEqual({ canEditCompany: true, canSeeTeam: true, canInvite: true, canManageMembers: true });
    expect(companyRules('manager')).toEqual({ canEditCompany: false, canSeeTeam: true, canInvite: false, canManageMembers: false });
    expect(companyRules('user')).toEqual({ canEditCompany: false, canSeeTeam: false, canInvite: false, canManageMembers: false });
    // An auditor reads the team and changes nothing.
    expect(companyRules('auditor')).toEqual({ canEditCompany: false, canSeeTeam: true, canInvite: false, canManageMembers: false });
  });

  it('validates invitations', () => {
    expect(validateInvite('  ')).toBe('Email address is required');
    expect(validateInvite('nope')).toBe('Please enter a valid email address');
    expect(validateInvite('a@b.co')).toBeNull();
  });

  it('refuses changing your own role or removing yourself', () => {
    expect(memberActionProblem('role', 'me', 'me')).toBe('You cannot change your own role');
    expect(memberActionProblem('remove', 'me', 'me')).toBe('You cannot remove yourself from the company');
    expect(memberActionProblem('remove', 'me', 'you')).toBeNull();
  });
});
