import { useCallback, useRef, useState } from 'react';
import { NavLink, useNavigate } from 'react-router-dom';
import { toast } from 'react-toastify';
import { useSession } from '../lib/session';
import { roles } from '../lib/roles';
import { Spinner } from './Spinner';
import { useOutsideClose } from './useOutsideClose';

export const TOP_LINKS: Array<[string, string]> = [
  ['/dashboard', 'Dashboard'],
  ['/transactions', 'Transactions'],
  ['/receipts', 'Receipts'],
  ['/matches', 'Matches'],
  ['/import', 'Import'],
  ['/exports', 'Exports'],
  ['/ai-dashboard', 'AI Dashboard'],
  ['/llm-test', 'LLM Test'],
];

/** Pages that only change things (importing a statement): not in an auditor's navigation. */
export const WRITE_ONLY_LINKS = new Set(['/import']);

const linkClass = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-link active' : 'nav-link');

/** Spec section 2, navigation bar. */
export function NavBar() {
  const { user, loading, companies, currentCompanyId, switchCompany, logout } = useSession();
  const navigate = useNavigate();
  const [userOpen, setUserOpen] = useState(false);
  const [companyOpen, setCompanyOpen] = useState(false);
  // On a narrow screen the page links fold into a menu button (CSS shows the button under 900 px).
  const [navOpen, setNavOpen] = useState(false);
  const userRef = useRef<HTMLDivElement>(null);
  const companyRef = useRef<HTMLDivElement>(null);
  useOutsideClose(userRef, userOpen, useCallback(() => setUserOpen(false), []));
  useOutsideClose(companyRef, companyOpen, useCallback(() => setCompanyOpen(false), []));

  if (loading || !user) {
    return (
      <header className="navbar">
        <span className="brand">Paperlink</span>
        <nav aria-label="Main">
          <NavLink to="/dashboard" className={linkClass}>Dashboard</NavLink>
        </nav>
        <Spinner label="Loading..." />
      </header>
    );
  }

  const current = companies.find((c) => c.id === currentCompanyId) ?? null;
  const isAdmin = current?.role === 'admin';
  // An auditor reads what an admin reads (the admin pages too) and changes nothing.
  const seesAdminPages = roles.seesWholeCompany(current?.role ?? null);
  const canWrite = roles.canWrite(current?.role ?? null);

  const onLogout = async () => {
    setUserOpen(false);
    await logout();
    toast.success('Logged out successfully');
    navigate('/auth');
  };

  const onSwitch = (id: string) => {
    setCompanyOpen(false);
    if (id === currentCompanyId) return;
    switchCompany(id);
    toast.info(`Switched to ${companies.find((c) => c.id === id)?.name ?? 'company'}`);
    navigate('/dashboard');
  };

  return (
    <header className="navbar">
      <NavLink to="/dashboard" className="brand">Paperlink</NavLink>
      <button type="button" className="btn nav-toggle" aria-expanded={navOpen} aria-controls="main-nav" onClick={() => setNavOpen((o) => !o)}>
        {navOpen ? 'Close menu' : 'Menu'}
      </button>
      <nav aria-label="Main" id="main-nav" className={navOpen ? 'open' : undefined}>
        {TOP_LINKS.filter(([to]) => canWrite || !WRITE_ONLY_LINKS.has(to)).map(([to, label]) => (
          <NavLink key={to} to={to} className={linkClass} onClick={() => setNavOpen(false)}>{label}</NavLink>
        ))}
      </nav>
      <div className="nav-right">
        {companies.length > 1 && (
          <div className="menu" ref={companyRef}>
            <button type="button" className="btn" aria-haspopup="menu" aria-expanded={companyOpen} onClick={() => setCompanyOpen((o) => !o)} data-testid="company-selector">
              {current?.name ?? 'Choose company'} ▾
            </button>
            {companyOpen && (
              <ul className="menu-list" role="menu" aria-label="Companies">
                {companies.map((c) => (
                  <li key={c.id} role="none">
                    <button type="button" role="menuitem" className={c.id === currentCompanyId ? 'menu-item current' : 'menu-item'} aria-current={c.id === currentCompanyId} onClick={() => onSwitch(c.id)}>
                      <span>{c.name}</span> <span className="muted">{c.role}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        <div className="menu" ref={userRef}>
          <button type="button" className="btn" aria-haspopup="menu" aria-expanded={userOpen} onClick={() => setUserOpen((o) => !o)} data-testid="user-menu">
            {user.firstName} {user.lastName} ▾
          </button>
          {userOpen && (
            <div className="menu-list" role="menu" aria-label="Account">
              <div className="menu-head">
                <strong>{user.firstName} {user.lastName}</strong>
                <span className="muted">{user.email}</span>
                {current && <span>{current.name} · {current.role}</span>}
                <span className="muted">{isAdmin ? 'Viewing all company data' : current?.role === 'auditor' ? 'Viewing all company data, read-only' : 'Viewing your personal data'}</span>
              </div>
              <NavLink role="menuitem" className="menu-item" to="/profile" onClick={() => setUserOpen(false)}>Profile</NavLink>
              {seesAdminPages && (
                <>
                  <NavLink role="menuitem" className="menu-item" to="/company-settings" onClick={() => setUserOpen(false)}>Company Settings</NavLink>
                  <NavLink role="menuitem" className="menu-item" to="/master-data-settings" onClick={() => setUserOpen(false)}>Master Data</NavLink>
                  <NavLink role="menuitem" className="menu-item" to="/settings" onClick={() => setUserOpen(false)}>Advanced Settings</NavLink>
                  <NavLink role="menuitem" className="menu-item" to="/system" onClick={() => setUserOpen(false)}>System</NavLink>
                </>
              )}
              <button type="button" role="menuitem" className="menu-item" onClick={onLogout}>Logout</button>
            </div>
          )}
        </div>
      </div>
    </header>
  );
}
