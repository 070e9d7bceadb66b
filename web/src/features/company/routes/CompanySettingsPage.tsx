import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Tabs } from '../../../components/Tabs';
import { Spinner } from '../../../components/Spinner';
import { Field } from '../../../components/Field';
import type { Company, Role } from '../../../lib/auth-api';
import { useSession } from '../../../lib/session';
import { isStale, STALE_FALLBACK } from '../../../lib/stale';
import { StaleNotice } from '../../../components/StaleNotice';
import type { Member } from '../api/company';
import { useCompany, useCompanyWrites, useMembers } from '../api/queries';
import { companyRules, memberActionProblem, validateInvite } from '../rules';

type Tab = 'info' | 'team' | 'invite' | 'overview';

const formOf = (c: Company) => ({ name: c.name, domain: c.domain ?? '' });

/** Spec sections 2 and 6, /company-settings. */
export function CompanySettingsPage() {
  const rules = companyRules(useSession((s) => s.role()));
  const company = useCompany();
  const members = useMembers(rules.canSeeTeam);
  if (!company.data) return <Spinner label="Loading..." />;
  return <CompanySettings company={company.data} reread={company.refetch} members={members.data ?? null} />;
}

function CompanySettings({ company, reread, members }: { company: Company; reread: () => Promise<{ data?: Company }>; members: Member[] | null }) {
  const { user, role } = useSession();
  const myRole = role();
  const rules = companyRules(myRole);
  const writes = useCompanyWrites();
  const [tab, setTab] = useState<Tab>('info');
  const [form, setForm] = useState(() => formOf(company));
  const [formError, setFormError] = useState<string | null>(null);
  const [invite, setInvite] = useState<{ email: string; role: Role }>({ email: '', role: 'user' });
  const [inviteError, setInviteError] = useState<string | null>(null);
  const busy = writes.update.isPending || writes.invite.isPending;
  /** Set when a save was refused because someone else changed the company since it was loaded. */
  const [stale, setStale] = useState<string | null>(null);

  /** After a 412: the company as it now is, in the form (a failed read toasts). */
  const reload = async () => {
    const { data } = await reread();
    if (!data) return;
    setForm(formOf(data));
    setStale(null);
  };

  const tabs: Array<[Tab, string]> = [['info', 'Company Information']];
  if (rules.canSeeTeam) tabs.push(['team', 'Team Members']);
  if (rules.canInvite) tabs.push(['invite', 'Invite Users']);
  tabs.push(['overview', 'Overview']);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!form.name.trim()) return setFormError('Company name is required');
    try {
      // The revision the form was filled from: someone else's change since is not overwritten.
      await writes.update.mutateAsync({ name: form.name.trim(), domain: form.domain.trim() ? form.domain.trim() : null, revision: company.revision });
      setStale(null);
      toast.success('Company information updated');
    } catch (err) {
      if (isStale(err)) setStale(errorMessage(err, STALE_FALLBACK));
      toast.error(errorMessage(err, 'Failed to update company information'));
    }
  };

  const sendInvite = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validateInvite(invite.email);
    setInviteError(problem);
    if (problem) return;
    try {
      await writes.invite.mutateAsync({ email: invite.email.trim().toLowerCase(), role: invite.role });
      toast.success(`Invitation sent to ${invite.email.trim()}`);
      setInvite({ email: '', role: 'user' });
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to send invitation'));
    }
  };

  const changeRole = async (m: Member, next: Role) => {
    const problem = memberActionProblem('role', user?.id, m.id);
    if (problem) return toast.error(problem);
    try {
      await writes.changeRole.mutateAsync({ userId: m.id, role: next });
      toast.success(`${m.firstName} is now ${next}`);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to update user role'));
    }
  };

  const remove = async (m: Member) => {
    const problem = memberActionProblem('remove', user?.id, m.id);
    if (problem) return toast.error(problem);
    if (!window.confirm(`Remove ${m.firstName} ${m.lastName} from the company?`)) return;
    try {
      await writes.remove.mutateAsync(m.id);
      toast.success(`${m.firstName} ${m.lastName} was removed`);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to remove user'));
    }
  };

  return (
    <section className="page">
      <h1>Company Settings</h1>
      <Tabs<Tab> label="Company settings sections" active={tab} onChange={setTab} tabs={tabs} />
      {tab === 'info' && (
        <form className="card" onSubmit={save} noValidate>
          <Field label="Company name" name="name" value={form.name} error={formError ?? undefined} disabled={!rules.canEditCompany} onChange={(v) => { setForm((f) => ({ ...f, name: v })); setFormError(null); }} />
          <Field label="Domain (optional)" name="domain" value={form.domain} disabled={!rules.canEditCompany} onChange={(v) => setForm((f) => ({ ...f, domain: v }))} />
          <div className="field">
            <span className="label">Plan</span>
            <span><span className="badge">{(company.planType ?? 'BASIC').toUpperCase()}</span> <span className="muted">Contact support to upgrade your plan</span></span>
          </div>
          {stale && <StaleNotice message={stale} onReload={() => void reload()} />}
          {rules.canEditCompany ? <button type="submit" className="btn primary" disabled={busy}>Save Changes</button> : <p className="muted">Only admins can edit company information.</p>}
        </form>
      )}
      {tab === 'team' && rules.canSeeTeam && (
        <div className="card">
          {!members ? <Spinner /> : (
            <table className="table">
              <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Joined</th><th>Last login</th>{rules.canManageMembers && <th>Actions</th>}</tr></thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.id} data-testid={`member-${m.email}`}>
                    <td>{m.firstName} {m.lastName}{m.id === user?.id && <span className="muted"> (you)</span>}</td>
                    <td>{m.email}</td>
                    <td>
                      {rules.canManageMembers && m.id !== user?.id ? (
                        <select aria-label={`Role of ${m.firstName} ${m.lastName}`} value={m.role} onChange={(e) => changeRole(m, e.target.value as Role)}>
                          <option value="user">user</option><option value="manager">manager</option><option value="admin">admin</option><option value="auditor">auditor (read-only)</option>
                        </select>
                      ) : m.role}
                    </td>
                    <td>{m.joinedAt ? new Date(m.joinedAt).toLocaleDateString() : ''}</td>
                    <td>{m.lastLogin ? new Date(m.lastLogin).toLocaleString() : 'Never'}</td>
                    {rules.canManageMembers && <td>{m.id !== user?.id && <button type="button" className="btn danger small" onClick={() => remove(m)}>Remove</button>}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      {tab === 'invite' && rules.canInvite && (
        <form className="card" onSubmit={sendInvite} noValidate>
          <p className="muted">The person must already have a Paperlink account.</p>
          <Field label="Email address" name="inviteEmail" type="email" value={invite.email} error={inviteError ?? undefined} onChange={(v) => { setInvite((i) => ({ ...i, email: v })); setInviteError(null); }} />
          <div className="field">
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={invite.role} onChange={(e) => setInvite((i) => ({ ...i, role: e.target.value as Role }))}>
              <option value="user">user</option><option value="manager">manager</option><option value="admin">admin</option><option value="auditor">auditor (read-only)</option>
            </select>
          </div>
          <button type="submit" className="btn primary" disabled={busy}>Send Invitation</button>
        </form>
      )}
      {tab === 'overview' && (
        <div className="card">
          <dl className="details">
            <dt>Company</dt><dd>{company.name}</dd>
            <dt>Your role</dt><dd>{myRole}</dd>
            <dt>Plan</dt><dd>{(company.planType ?? 'BASIC').toUpperCase()}</dd>
            <dt>Members</dt><dd>{company.userCount ?? 0}</dd>
            <dt>Transactions</dt><dd>{company.transactionCount ?? 0}</dd>
            <dt>Receipts</dt><dd>{company.receiptCount ?? 0}</dd>
            <dt>Created</dt><dd>{company.createdAt ? new Date(company.createdAt).toLocaleDateString() : ''}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
