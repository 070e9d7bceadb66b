/** Spec section 5: the rules and messages of the sign-in, registration, profile and password forms. */
export type Errors<K extends string> = Partial<Record<K, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD = 8;

export function validateSignIn(form: { email: string; password: string }): Errors<'email' | 'password'> {
  const errors: Errors<'email' | 'password'> = {};
  const email = form.email.trim();
  if (!email) errors.email = 'Email is required';
  else if (!EMAIL.test(email)) errors.email = 'Email is invalid';
  if (!form.password) errors.password = 'Password is required';
  return errors;
}

export type RegisterField = 'firstName' | 'lastName' | 'email' | 'companyName' | 'password' | 'confirmPassword';

export function validateRegister(form: Record<RegisterField, string>): Errors<RegisterField> {
  const errors: Errors<RegisterField> = {};
  if (!form.firstName.trim()) errors.firstName = 'First name is required';
  if (!form.lastName.trim()) errors.lastName = 'Last name is required';
  const email = form.email.trim();
  if (!email) errors.email = 'Email is required';
  else if (!EMAIL.test(email)) errors.email = 'Email is invalid';
  if (!form.companyName.trim()) errors.companyName = 'Company name is required';
  if (!form.password) errors.password = 'Password is required';
  else if (form.password.length < MIN_PASSWORD) errors.password = 'Password must be at least 8 characters long';
  else if (!/[a-z]/.test(form.password) || !/[A-Z]/.test(form.password) || !/\d/.test(form.password)) {
    errors.password = 'Password must contain at least one uppercase letter, one lowercase letter, and one number';
  }
  if (!form.confirmPassword) errors.confirmPassword = 'Please confirm your password';
  else if (form.confirmPassword !== form.password) errors.confirmPassword = 'Passwords do not match';
  return errors;
}

/** What is sent on submit: email lower-cased, other fields trimmed. */
export function registerPayload(form: Record<RegisterField, string>) {
  return {
    firstName: form.firstName.trim(),
    lastName: form.lastName.trim(),
    email: form.email.trim().toLowerCase(),
    companyName: form.companyName.trim(),
    password: form.password,
  };
}

export function validateProfile(firstName: string, lastName: string): string | null {
  return !firstName.trim() || !lastName.trim() ? 'First name and last name are required' : null;
}

export function validatePasswordChange(f: { currentPassword: string; newPassword: string; confirmPassword: string }): string | null {
  if (!f.currentPassword || !f.newPassword || !f.confirmPassword) return 'All password fields are required';
  if (f.newPassword.length < MIN_PASSWORD) return 'New password must be at least 8 characters long';
  if (f.newPassword !== f.confirmPassword) return 'New passwords do not match';
  return null;
}
