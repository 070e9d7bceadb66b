import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { CompanySettingsPage } from './CompanySettingsPage';

const company = { id: 'c1', name: 'Acme', role: 'admin', domain: null, planType: 'basic', userCount: 2 };
const members = [
  { id: 'me', firstName: 'Ana', lastName: 'Lopez', email: 'ana@example.com', role: 'admin' },
  { id: 'u2', firstName: 'Bo', lastName: 'Berg', email: 'bo@example.com', role: 'user' },
];
const fail = (status: number, error?: string) => Promise.reject(Object.assign(new Error('x'), { isAxiosError: true, response: { status, data: error ? { error } : {} } }));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function as(role: 'admin' | 'manager' | 'user') {
  useSession.setState({ initialized: true, loading: false, user: { id: 'me', email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' }, companies: [{ id: 'c1', name: 'Acme', role }], currentCompanyId: 'c1' });
}

function answer(overrides: Record<string, () => Promise<unknown>> = {}) {
  vi.spyOn(api, 'get').mockImplementation((url: string) => {
    if (overrides[url]) return overrides[url]!() as never;
    if (url === '/companies/current') return Promise.resolve({ data: { company: { ...company, role: useSession.getState().role() } } }) as never;
    if (url === '/companies/current/users') return Promise.resolve({ data: { users: members } }) as never;
    return fail(404) as never;
  });
}

function show() {
  return render(<QueryClientProvider client={createQueryClient()}><CompanySettingsPage /><ToastContainer /></QueryClientProvider>);
}

describe('/company-settings', () => {
  it('gives admins four tabs, the plan read-only, and an editable company', async () => {
    as('admin');
    answer();
    show();
    await screen.findByRole('tab', { name: 'Company Information' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Company Information', 'Team Members', 'Invite Users', 'Overview']);
    expect(screen.getByText('BASIC')).toBeTruthy();
    expect(screen.getByText('Contact support to upgrade your plan')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Company name'), { target: { value: ' ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(screen.getByText('Company name is required')).toBeTruthy();
  });

  it('sends an empty domain as null and reports failures with the server message or the generic one', async () => {
    as('admin');
    answer();
    const put = vi.spyOn(api, 'put').mockImplementationOnce(() => fail(500)).mockImplementationOnce(() => fail(409, 'Server says no'));
    show();
    fireEvent.change(await screen.findByLabelText('Company name'), { target: { value: 'Acme Two' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Failed to update company information');
    expect(put).toHaveBeenCalledWith('/companies/current', { name: 'Acme Two', domain: null });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Server says no');
  });

  it('gives managers the team (read-only) and no invitations; users neither', async () => {
    as('manager');
    answer();
    const view = show();
    await screen.findByRole('tab', { name: 'Team Members' });
    expect(screen.queryByRole('tab', { name: 'Invite Users' })).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: 'Team Members' }));
    await screen.findByText('bo@example.com');
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
    view.unmount();
    as('user');
    answer();
    show();
    await screen.findByRole('tab', { name: 'Company Information' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Company Information', 'Overview']);
    expect((screen.getByLabelText('Company name') as HTMLInputElement).disabled).toBe(true);
  });

  it('offers no role change or removal on your own row, and reports role, removal and invitation failures', async () => {
    as('admin');
    answer();
    vi.spyOn(api, 'put').mockImplementation(() => fail(500));
    vi.spyOn(api, 'delete').mockImplementation(() => fail(500));
    vi.spyOn(api, 'post').mockImplementation(() => fail(500));
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    show();
    fireEvent.click(await screen.findByRole('tab', { name: 'Team Members' }));
    await screen.findByText('bo@example.com');
    expect(screen.getAllByRole('combobox')).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: 'Remove' })).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('Role of Bo Berg'), { target: { value: 'manager' } });
    await screen.findByText('Failed to update user role');
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    await screen.findByText('Failed to remove user');
    fireEvent.click(screen.getByRole('tab', { name: 'Invite Users' }));
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: 'new@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Invitation' }));
    await screen.findByText('Failed to send invitation');
  });

  it('reports a company that cannot be loaded, and team loading failures except 403', async () => {
    as('admin');
    answer({ '/companies/current': () => fail(500) });
    const view = show();
    await screen.findByText('Failed to load company information');
    view.unmount();
    answer({ '/companies/current/users': () => fail(500) });
    const again = show();
    await screen.findByText('Failed to load company users');
    again.unmount();
    answer({ '/companies/current/users': () => fail(403) });
    show();
    await screen.findByRole('tab', { name: 'Team Members' });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText('Failed to load company users')).toBeNull();
  });

  it('saves against the revision it loaded; on 412 it says so, keeps the input and reloads on request', async () => {
    as('admin');
    let stored = { ...company, name: 'Acme', revision: 3 };
    answer({ '/companies/current': () => Promise.resolve({ data: { company: { ...stored, role: 'admin' } } }) });
    const stale = 'This company was changed by someone else. Reload to see the changes.';
    const put = vi.spyOn(api, 'put').mockImplementationOnce(() => fail(412, stale));
    show();
    const name = () => (screen.getByLabelText('Company name') as HTMLInputElement).value;
    fireEvent.change(await screen.findByLabelText('Company name'), { target: { value: 'Mine' } });
    // Meanwhile someone else renames the company.
    stored = { ...stored, name: 'Theirs', revision: 4 };
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect((await screen.findAllByText(new RegExp(stale))).length).toBeGreaterThanOrEqual(1);
    expect(put).toHaveBeenCalledWith('/companies/current', { name: 'Mine', domain: null }, { headers: { 'If-Match': '"3"' } });
    expect(name()).toBe('Mine');
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(name()).toBe('Theirs'));
    expect(screen.queryByRole('button', { name: 'Reload' })).toBeNull();
    put.mockImplementationOnce(() => Promise.resolve({ data: { company: { ...stored, name: 'Mine after all', revision: 5, role: 'admin' } } }) as never);
    fireEvent.change(screen.getByLabelText('Company name'), { target: { value: 'Mine after all' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Company information updated');
    expect(put).toHaveBeenLastCalledWith('/companies/current', { name: 'Mine after all', domain: null }, { headers: { 'If-Match': '"4"' } });
  });
});
