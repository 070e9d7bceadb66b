import { Outlet } from 'react-router-dom';
import { Suspense, useRef } from 'react';
import { useStackedTables } from '../components/useStackedTables';
import { NavBar } from '../components/NavBar';
import { Spinner } from '../components/Spinner';
import { useSession } from '../lib/session';
import { useAsOf } from '../lib/as-of';
import { AsOfBar } from '../features/history/components/AsOfBar';
import { ReadOnlyNotice } from '../components/ReadOnlyNotice';
import { ReadSideNotice } from '../components/ReadSideNotice';
import { usePageFocus } from './page-focus';

/** The shell: navigation and the page. A company switch remounts the page, so it loads that company's data. */
export function Layout() {
  const companyId = useSession((s) => s.currentCompanyId);
  // Showing the lists as of another moment remounts the page too (the as-of picker).
  const asOf = useAsOf((s) => s.asOf);
  const main = useRef<HTMLDivElement>(null);
  useStackedTables(main);
  usePageFocus();
  return (
    <>
      <a className="skip-link" href="#main-content">Skip to content</a>
      <NavBar />
      <div ref={main}>
      <main className="content" id="main-content" tabIndex={-1} key={`${companyId ?? 'none'}|${asOf ?? 'now'}`}>
        <ReadOnlyNotice />
        <ReadSideNotice />
        <AsOfBar />
        <Suspense fallback={<Spinner label="Loading..." />}>
          <Outlet />
        </Suspense>
      </main>
      </div>
    </>
  );
}
