import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Spinner } from '../../../components/Spinner';
import { Field } from '../../../components/Field';
import { useSession } from '../../../lib/session';
import { registerPayload, validateRegister, validateSignIn, type Errors, type RegisterField } from '../../../lib/validation';

const EMPTY_REGISTER: Record<RegisterField, string> = { firstName: '', lastName: '', email: '', companyName: '', password: '', confirmPassword: '' };

/** Spec sections 2 and 5: sign in and create account. */
export function AuthPage() {
  const { initialized, user, login, register } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [mode, setMode] = useState<'signin' | 'register'>('signin');
  const [signIn, setSignIn] = useState({ email: '', password: '' });
  const [signInErrors, setSignInErrors] = useState<Errors<'email' | 'password'>>({});
  const [reg, setReg] = useState(EMPTY_REGISTER);
  const [regErrors, setRegErrors] = useState<Errors<RegisterField>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (!initialized) return <Spinner label="Loading..." />;
  const from = (location.state as { from?: string } | null)?.from;
  if (user) return <Navigate to={from && from !== '/auth' ? from : '/dashboard'} replace />;

  const editSignIn = (field: 'email' | 'password', value: string) => {
    setSignIn((f) => ({ ...f, [field]: value }));
    setSignInErrors((e) => ({ ...e, [field]: undefined }));
    setFormError(null);
  };
  const editReg = (field: RegisterField, value: string) => {
    setReg((f) => ({ ...f, [field]: value }));
    setRegErrors((e) => ({ ...e, [field]: undefined }));
    setFormError(null);
  };

  const submitSignIn = async (e: FormEvent) => {
    e.preventDefault();
    const errors = validateSignIn(signIn);
    setSignInErrors(errors);
    if (Object.keys(errors).length > 0) return;
    setBusy(true);
    try {
      const u = await login(signIn.email.trim().toLowerCase(), signIn.password);
      toast.success(`Welcome back, ${u.firstName}!`);
      navigate(from && from !== '/auth' ? from : '/dashboard', { replace: true });
    } catch (error) {
      setFormError(errorMessage(error, 'Login failed'));
      toast.error('Login failed. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  const submitRegister = async (e: FormEvent) => {
    e.preventDefault();
    const errors = validateRegister(reg);
    setRegErrors(errors);
    if (Object.keys(errors).length > 0) return;
    setBusy(true);
    try {
      const u = await register(registerPayload(reg));
      toast.success(`Welcome to Paperlink, ${u.firstName}!`);
      navigate('/dashboard', { replace: true });
    } catch (error) {
      setFormError(errorMessage(error, 'Registration failed'));
      toast.error('Registration failed. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <section className="auth-hero">
        <h1>Paperlink</h1>
        <p className="tagline">Smart receipt matching for modern businesses</p>
        <ul className="features">
          <li><strong>OCR Recognition</strong> reads receipts and PDFs for you</li>
          <li><strong>AI Matching</strong> pairs receipts with card transactions</li>
          <li><strong>Multi-Company</strong> with roles for every team</li>
          <li><strong>Export Reports</strong> as PDF or Excel</li>
        </ul>
      </section>
      <section className="auth-card" aria-labelledby="auth-title">
        <div className="tabs" role="tablist" aria-label="Sign in or create an account">
          <button type="button" role="tab" aria-selected={mode === 'signin'} className={mode === 'signin' ? 'tab active' : 'tab'} onClick={() => { setMode('signin'); setFormError(null); }}>Sign In</button>
          <button type="button" role="tab" aria-selected={mode === 'register'} className={mode === 'register' ? 'tab active' : 'tab'} onClick={() => { setMode('register'); setFormError(null); }}>Create Account</button>
        </div>
        <h2 id="auth-title" className="sr-only">{mode === 'signin' ? 'Sign In' : 'Create Account'}</h2>
        {formError && <div className="form-error" role="alert">{formError}</div>}
        {mode === 'signin' ? (
          <form onSubmit={submitSignIn} noValidate>
            <Field label="Email" name="email" type="email" autoComplete="email" value={signIn.email} error={signInErrors.email} onChange={(v) => editSignIn('email', v)} />
            <Field label="Password" name="password" type="password" autoComplete="current-password" value={signIn.password} error={signInErrors.password} onChange={(v) => editSignIn('password', v)} />
            <button type="submit" className="btn primary wide" disabled={busy}>{busy ? 'Signing in...' : 'Sign In'}</button>
          </form>
        ) : (
          <form onSubmit={submitRegister} noValidate>
            <div className="row">
              <Field label="First name" name="firstName" autoComplete="given-name" value={reg.firstName} error={regErrors.firstName} onChange={(v) => editReg('firstName', v)} />
              <Field label="Last name" name="lastName" autoComplete="family-name" value={reg.lastName} error={regErrors.lastName} onChange={(v) => editReg('lastName', v)} />
            </div>
            <Field label="Email" name="email" type="email" autoComplete="email" value={reg.email} error={regErrors.email} onChange={(v) => editReg('email', v)} />
            <Field label="Company name" name="companyName" autoComplete="organization" value={reg.companyName} error={regErrors.companyName} onChange={(v) => editReg('companyName', v)} />
            <Field label="Password" name="password" type="password" autoComplete="new-password" value={reg.password} error={regErrors.password} onChange={(v) => editReg('password', v)} />
            <Field label="Confirm password" name="confirmPassword" type="password" autoComplete="new-password" value={reg.confirmPassword} error={regErrors.confirmPassword} onChange={(v) => editReg('confirmPassword', v)} />
            <button type="submit" className="btn primary wide" disabled={busy}>{busy ? 'Creating account...' : 'Create Account'}</button>
          </form>
        )}
      </section>
    </main>
  );
}
