import { ValidationError, type FieldError } from '../core/errors';
import { hasUnsafeCharacters, unsafeTextMessage } from '../core/text';

/** The spec's rules (section 5), enforced on the server too. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function passwordProblems(password: string, field = 'password', label = 'Password'): FieldError[] {
  if (!password) return [{ field, message: `${label} is required` }];
  if (password.length < MIN_PASSWORD_LENGTH) return [{ field, message: `${label} must be at least 8 characters long` }];
  if (!/[a-z]/.test(password) || !/[A-Z]/.test(password) || !/\d/.test(password)) {
    return [{ field, message: `${label} must contain at least one uppercase letter, one lowercase letter, and one number` }];
  }
  if (password.length > 256) return [{ field, message: `${label} must be at most 256 characters long` }];
  return [];
}

export function emailProblems(email: string, field = 'email'): FieldError[] {
  if (!email) return [{ field, message: 'Email is required' }];
  if (hasUnsafeCharacters(email)) return [{ field, message: unsafeTextMessage('Email') }];
  if (email.length > 254 || !EMAIL_PATTERN.test(email)) return [{ field, message: 'Email is invalid' }];
  return [];
}

export function requireName(value: string, field: string, message: string, max = 100): FieldError[] {
  if (!value.trim()) return [{ field, message }];
  if (value.trim().length > max) return [{ field, message: `${message.replace(' is required', '')} must be at most ${max} characters` }];
  if (hasUnsafeCharacters(value)) return [{ field, message: unsafeTextMessage(message.replace(' is required', '')) }];
  return [];
}

export function throwIfProblems(problems: FieldError[]): void {
  if (problems.length > 0) throw new ValidationError(problems[0]!.message, problems);
}
