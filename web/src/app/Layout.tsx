import { Outlet } from 'react-router-dom';
import { Suspense } from 'react';
import { NavBar } from '../components/NavBar';
import { Spinner } from '../components/Spinner';
import { useSession } from '../lib/session';

/** The shell: navigation and the page. A company switch remounts the page, so it loads that company's data. */
export function Layout() {
  const companyId = useSession((s) => s.currentCompanyId);
  return (
    <>
      <NavBar />
      <main className="content" key={companyId ?? 'none'}>
        <Suspense fallback={<Spinner label="Loading..." />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
