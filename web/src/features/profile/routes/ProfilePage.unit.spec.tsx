import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { ProfilePage } from './ProfilePage';

const profile = { id: 'u-42', email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez', emailVerified: true, lastLogin: '2026-11-20T10:00:00Z', memberSince: '2025-01-02T10:00:00Z' };
const fail = (status: number, error?: string) => Promise.reject(Object.assign(new Error('x'), { isAxiosError: true, response: { status, data: error ? { error } : {} } }));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});
beforeEach(() => useSession.setState({ initialized: true, loading: false, user: profile, companies: [], currentCompanyId: null }));

function show() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <ProfilePage />
        <ToastContainer />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('/profile', () => {
  it('says so when the profile cannot be loaded', async () => {
    vi.spyOn(api, 'get').mockImplementation(() => fail(500));
    show();
    await screen.findByText('Failed to load profile information');
  });

  it('shows the three tabs and the account details: id, verified email, last login, member since, Active', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { user: profile } });
    show();
    await screen.findByRole('tab', { name: 'Profile Information' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Profile Information', 'Change Password', 'Account Details']);
    fireEvent.click(screen.getByRole('tab', { name: 'Account Details' }));
    expect(screen.getByText('u-42')).toBeTruthy();
    expect(screen.getByText('Verified')).toBeTruthy();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.getByText(new Date(profile.lastLogin).toLocaleString())).toBeTruthy();
    expect(screen.getByText(new Date(profile.memberSince).toLocaleString())).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign Out of All Devices' })).toBeTruthy();
  });

  it('keeps the email read-only and shows update failures', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { user: profile } });
    const put = vi.spyOn(api, 'put').mockImplementation(() => fail(500));
    show();
    const email = (await screen.findByLabelText('Email (cannot be changed)')) as HTMLInputElement;
    expect(email.disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Failed to update profile');
    expect(screen.getByText('Profile update failed')).toBeTruthy();
    expect(put).toHaveBeenCalledWith('/auth/profile', { firstName: 'Ana', lastName: 'Lopez' });
  });

  it('shows the server message when a password change is refused, else the generic one', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { user: profile } });
    const put = vi.spyOn(api, 'put').mockImplementationOnce(() => fail(400, 'Current password is incorrect')).mockImplementationOnce(() => fail(500));
    show();
    fireEvent.click(await screen.findByRole('tab', { name: 'Change Password' }));
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(screen.getByText('All password fields are required')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Current password'), { target: { value: 'OldPassw0rd' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'NewPassw0rd' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'NewPassw0rd' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    await waitFor(() => expect(screen.getAllByText('Current password is incorrect').length).toBeGreaterThan(0));
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    await screen.findByText('Failed to change password');
    expect(put).toHaveBeenCalledTimes(2);
  });

  it('signs out of all devices', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { user: profile } });
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { success: true } });
    show();
    fireEvent.click(await screen.findByRole('tab', { name: 'Account Details' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sign Out of All Devices' }));
    await screen.findByText('Logged out successfully');
    expect(post.mock.calls.map((c) => c[0])).toEqual(['/auth/logout-all', '/auth/logout']);
    expect(useSession.getState().user).toBeNull();
  });
});
