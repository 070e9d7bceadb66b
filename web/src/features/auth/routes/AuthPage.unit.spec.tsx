import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { useSession } from '../../../lib/session';
import { RequireAuth } from '../../../components/RequireAuth';
import { AuthPage } from './AuthPage';

afterEach(cleanup);
beforeEach(() => useSession.setState({ initialized: true, loading: false, user: null, companies: [], currentCompanyId: null }));

function app(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/auth" element={<AuthPage />} />
        <Route path="/dashboard" element={<RequireAuth><p>dashboard page</p></RequireAuth>} />
        <Route path="/profile" element={<RequireAuth><p>profile page</p></RequireAuth>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('/auth and the route guard', () => {
  it('defaults to Sign In and shows field errors that clear when the field is edited', () => {
    app('/auth');
    expect(screen.getByRole('tab', { name: 'Sign In' }).getAttribute('aria-selected')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'a' } });
    expect(screen.queryByText('Email is required')).toBeNull();
    expect(screen.getByText('Password is required')).toBeTruthy();
  });

  it('shows every registration message until the form is right', () => {
    app('/auth');
    fireEvent.click(screen.getByRole('tab', { name: 'Create Account' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    for (const m of ['First name is required', 'Last name is required', 'Email is required', 'Company name is required', 'Password is required', 'Please confirm your password']) {
      expect(screen.getByText(m)).toBeTruthy();
    }
  });

  it('shows Loading... while the session starts', () => {
    useSession.setState({ initialized: false, loading: true });
    app('/dashboard');
    expect(screen.getByRole('status').textContent).toContain('Loading...');
  });

  it('sends a signed-out visitor to /auth, and a signed-in one from /auth to /dashboard', () => {
    const view = app('/profile');
    expect(screen.getByRole('tab', { name: 'Sign In' })).toBeTruthy();
    view.unmount();
    useSession.setState({ user: { id: 'u', email: 'a@b.co', firstName: 'A', lastName: 'B' } });
    app('/auth');
    expect(screen.getByText('dashboard page')).toBeTruthy();
  });
});
