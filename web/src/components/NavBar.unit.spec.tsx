import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { useSession } from '../lib/session';
import type { CompanyRef } from '../lib/auth-api';
import { NavBar, TOP_LINKS } from './NavBar';

const user = { id: 'u1', email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' };

function sessionWith(companies: CompanyRef[], currentCompanyId: string | null, loading = false) {
  useSession.setState({ initialized: true, loading, user: loading ? null : user, companies, currentCompanyId });
}

function renderAt(path = '/transactions') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <NavBar />
    </MemoryRouter>,
  );
}

afterEach(cleanup);
beforeEach(() => localStorage.clear());

describe('navigation bar (spec section 2)', () => {
  it('shows every top link and highlights the active path', () => {
    sessionWith([{ id: 'c1', name: 'Acme', role: 'user' }], 'c1');
    renderAt('/transactions');
    for (const [, label] of TOP_LINKS) expect(screen.getByRole('link', { name: label })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Transactions' }).className).toContain('active');
    expect(screen.getByRole('link', { name: 'Receipts' }).className).not.toContain('active');
  });

  it('while loading shows only the brand, the dashboard link and a spinner', () => {
    sessionWith([], null, true);
    renderAt();
    expect(screen.getByText('Paperlink')).toBeTruthy();
    expect(screen.getAllByRole('link').map((l) => l.textContent)).toEqual(['Dashboard']);
    expect(screen.getByRole('status').textContent).toContain('Loading...');
  });

  it('gives admins Company Settings, Master Data and Advanced Settings, and the company-wide scope line', () => {
    sessionWith([{ id: 'c1', name: 'Acme', role: 'admin' }], 'c1');
    renderAt();
    fireEvent.click(screen.getByTestId('user-menu'));
    expect(screen.getByText('Viewing all company data')).toBeTruthy();
    for (const label of ['Profile', 'Company Settings', 'Master Data', 'Advanced Settings', 'Logout']) expect(screen.getByRole('menuitem', { name: label })).toBeTruthy();
    expect(screen.getByText('ana@example.com')).toBeTruthy();
    expect(screen.getByText('Acme · admin')).toBeTruthy();
  });

  it("gives auditors the admin's pages to read, no Import link, and the read-only scope line", () => {
    sessionWith([{ id: 'c1', name: 'Acme', role: 'auditor' }], 'c1');
    renderAt();
    expect(screen.queryByRole('link', { name: 'Import' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Transactions' })).toBeTruthy();
    fireEvent.click(screen.getByTestId('user-menu'));
    expect(screen.getByText('Viewing all company data, read-only')).toBeTruthy();
    expect(screen.getAllByRole('menuitem').map((m) => m.textContent)).toEqual(['Profile', 'Company Settings', 'Master Data', 'Advanced Settings', 'System', 'Logout']);
  });

  it('gives other roles only Profile and Logout, and the personal scope line', () => {
    for (const role of ['user', 'manager'] as const) {
      sessionWith([{ id: 'c1', name: 'Acme', role }], 'c1');
      const view = renderAt();
      fireEvent.click(screen.getByTestId('user-menu'));
      expect(screen.getByText('Viewing your personal data')).toBeTruthy();
      expect(screen.getAllByRole('menuitem').map((m) => m.textContent)).toEqual(['Profile', 'Logout']);
      view.unmount();
    }
  });

  it('shows the company selector only with more than one company, with names, roles and the current one marked', () => {
    sessionWith([{ id: 'c1', name: 'Acme', role: 'admin' }], 'c1');
    const one = renderAt();
    expect(screen.queryByTestId('company-selector')).toBeNull();
    one.unmount();
    sessionWith([{ id: 'c1', name: 'Acme', role: 'admin' }, { id: 'c2', name: 'Beta', role: 'user' }], 'c1');
    renderAt();
    fireEvent.click(screen.getByTestId('company-selector'));
    const items = screen.getAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual(['Acme admin', 'Beta user']);
    expect(items[0]!.getAttribute('aria-current')).toBe('true');
    fireEvent.click(items[1]!);
    expect(useSession.getState().currentCompanyId).toBe('c2');
    expect(localStorage.getItem('currentCompanyId')).toBe('c2');
    expect(useSession.getState().user?.currentRole).toBe('user');
  });

  it('closes menus on an outside click and on Escape', () => {
    sessionWith([{ id: 'c1', name: 'Acme', role: 'admin' }], 'c1');
    renderAt();
    fireEvent.click(screen.getByTestId('user-menu'));
    expect(screen.queryByRole('menu')).not.toBeNull();
    fireEvent.mouseDown(document.body);
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(screen.getByTestId('user-menu'));
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
  });
});
