import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Tabs } from '../../../components/Tabs';
import { Spinner } from '../../../components/Spinner';
import { Field } from '../../../components/Field';
import type { User } from '../../../lib/auth-api';
import { useProfile, useProfileWrites } from '../api/queries';
import { useSession } from '../../../lib/session';
import { validatePasswordChange, validateProfile } from '../../../lib/validation';

type Tab = 'info' | 'password' | 'account';
const when = (iso?: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** Spec section 2, /profile: Profile Information, Change Password, Account Details. */
export function ProfilePage() {
  const profile = useProfile();
  if (!profile.data) return <Spinner label="Loading..." />;
  return <Profile profile={profile.data} />;
}

function Profile({ profile }: { profile: User }) {
  const logout = useSession((s) => s.logout);
  const navigate = useNavigate();
  const writes = useProfileWrites();
  const [tab, setTab] = useState<Tab>('info');
  const [names, setNames] = useState({ firstName: profile.firstName, lastName: profile.lastName });
  const [pw, setPw] = useState({ currentPassword: '', newPassword: '', confirmPassword: '' });
  const [error, setError] = useState<string | null>(null);
  const busy = writes.update.isPending || writes.changePassword.isPending;

  const saveProfile = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validateProfile(names.firstName, names.lastName);
    setError(problem);
    if (problem) return;
    try {
      await writes.update.mutateAsync({ firstName: names.firstName.trim(), lastName: names.lastName.trim() });
      toast.success('Profile updated successfully');
    } catch (err) {
      const message = errorMessage(err, 'Profile update failed');
      setError(message);
      toast.error('Failed to update profile');
    }
  };

  const changePassword = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validatePasswordChange(pw);
    setError(problem);
    if (problem) return;
    try {
      await writes.changePassword.mutateAsync({ currentPassword: pw.currentPassword, newPassword: pw.newPassword });
      setPw({ currentPassword: '', newPassword: '', confirmPassword: '' });
      toast.success('Password changed successfully');
    } catch (err) {
      const message = errorMessage(err, 'Password change failed');
      setError(message);
      toast.error(message === 'Password change failed' ? 'Failed to change password' : message);
    }
  };

  const signOutEverywhere = async () => {
    try {
      await writes.logoutAll.mutateAsync();
    } catch {
      /* signing out here happens anyway */
    }
    await logout();
    toast.success('Logged out successfully');
    navigate('/auth');
  };

  return (
    <section className="page">
      <h1>Profile</h1>
      <Tabs<Tab> label="Profile sections" active={tab} onChange={(t) => { setTab(t); setError(null); }} tabs={[['info', 'Profile Information'], ['password', 'Change Password'], ['account', 'Account Details']]} />
      {error && <div className="form-error" role="alert">{error}</div>}
      {tab === 'info' && (
        <form className="card" onSubmit={saveProfile} noValidate>
          <Field label="First name" name="firstName" value={names.firstName} onChange={(v) => { setNames((n) => ({ ...n, firstName: v })); setError(null); }} />
          <Field label="Last name" name="lastName" value={names.lastName} onChange={(v) => { setNames((n) => ({ ...n, lastName: v })); setError(null); }} />
          <Field label="Email (cannot be changed)" name="email" value={profile.email} disabled onChange={() => {}} />
          <button type="submit" className="btn primary" disabled={busy}>Save Changes</button>
        </form>
      )}
      {tab === 'password' && (
        <form className="card" onSubmit={changePassword} noValidate>
          <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" value={pw.currentPassword} onChange={(v) => { setPw((p) => ({ ...p, currentPassword: v })); setError(null); }} />
          <Field label="New password" name="newPassword" type="password" autoComplete="new-password" value={pw.newPassword} onChange={(v) => { setPw((p) => ({ ...p, newPassword: v })); setError(null); }} />
          <Field label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" value={pw.confirmPassword} onChange={(v) => { setPw((p) => ({ ...p, confirmPassword: v })); setError(null); }} />
          <button type="submit" className="btn primary" disabled={busy}>Change Password</button>
        </form>
      )}
      {tab === 'account' && (
        <div className="card">
          <dl className="details">
            <dt>User ID</dt><dd><code>{profile.id}</code></dd>
            <dt>Email</dt><dd>{profile.email} {profile.emailVerified ? <span className="badge success">Verified</span> : <span className="badge">Not verified</span>}</dd>
            <dt>Last login</dt><dd>{when(profile.lastLogin)}</dd>
            <dt>Member since</dt><dd>{when(profile.memberSince)}</dd>
            <dt>Status</dt><dd><span className="badge success">Active</span></dd>
          </dl>
          <button type="button" className="btn danger" onClick={signOutEverywhere}>Sign Out of All Devices</button>
        </div>
      )}
    </section>
  );
}
