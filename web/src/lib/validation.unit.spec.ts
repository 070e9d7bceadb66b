import { describe, expect, it } from 'vitest';
import { registerPayload, validatePasswordChange, validateProfile, validateRegister, validateSignIn } from './validation';

const good = { firstName: 'Ana', lastName: 'Lopez', email: 'ana@example.com', companyName: 'Acme', password: 'Secret123', confirmPassword: 'Secret123' };

describe('sign-in rules', () => {
  it.each([
    [{ email: '', password: 'x' }, { email: 'Email is required' }],
    [{ email: 'ana', password: 'x' }, { email: 'Email is invalid' }],
    [{ email: 'ana@example.com', password: '' }, { password: 'Password is required' }],
    [{ email: 'ana@example.com', password: 'x' }, {}],
  ])('%j → %j', (form, errors) => expect(validateSignIn(form)).toEqual(errors));
});

describe('registration rules', () => {
  it.each([
    [{ firstName: ' ' }, 'firstName', 'First name is required'],
    [{ lastName: '' }, 'lastName', 'Last name is required'],
    [{ companyName: '  ' }, 'companyName', 'Company name is required'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'a@b' }, 'email', 'Email is invalid'],
    [{ password: '', confirmPassword: '' }, 'password', 'Password is required'],
    [{ password: 'Ab1', confirmPassword: 'Ab1' }, 'password', 'Password must be at least 8 characters long'],
    [{ password: 'abcdefgh1', confirmPassword: 'abcdefgh1' }, 'password', 'Password must contain at least one uppercase letter, one lowercase letter, and one number'],
    [{ password: 'ABCDEFGH1', confirmPassword: 'ABCDEFGH1' }, 'password', 'Password must contain at least one uppercase letter, one lowercase letter, and one number'],
    [{ password: 'Abcdefghi', confirmPassword: 'Abcdefghi' }, 'password', 'Password must contain at least one uppercase letter, one lowercase letter, and one number'],
    [{ confirmPassword: '' }, 'confirmPassword', 'Please confirm your password'],
    [{ confirmPassword: 'Secret124' }, 'confirmPassword', 'Passwords do not match'],
  ])('%j gives %s: %s', (change, field, message) => {
    expect(validateRegister({ ...good, ...change })[field as keyof typeof good]).toBe(message);
  });

  it('accepts a valid form and sends the email lower-cased and the rest trimmed', () => {
    expect(validateRegister(good)).toEqual({});
    expect(registerPayload({ ...good, firstName: ' Ana ', email: ' Ana@Example.COM ', companyName: ' Acme ' })).toEqual({
      firstName: 'Ana', lastName: 'Lopez', email: 'ana@example.com', companyName: 'Acme', password: 'Secret123',
    });
  });
});

describe('profile and password rules', () => {
  it('requires both names after trimming', () => {
    expect(validateProfile(' ', 'Lopez')).toBe('First name and last name are required');
    expect(validateProfile('Ana', '')).toBe('First name and last name are required');
    expect(validateProfile('Ana', 'Lopez')).toBeNull();
  });

  it('checks the password change fields', () => {
    expect(validatePasswordChange({ currentPassword: '', newPassword: 'x', confirmPassword: 'x' })).toBe('All password fields are required');
    expect(validatePasswordChange({ currentPassword: 'a', newPassword: 'short', confirmPassword: 'short' })).toBe('New password must be at least 8 characters long');
    expect(validatePasswordChange({ currentPassword: 'a', newPassword: 'LongEnough1', confirmPassword: 'LongEnough2' })).toBe('New passwords do not match');
    expect(validatePasswordChange({ currentPassword: 'a', newPassword: 'LongEnough1', confirmPassword: 'LongEnough1' })).toBeNull();
  });
});
