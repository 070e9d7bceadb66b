import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** The document title of each route (the tab and the screen reader say where one is). */
export const PAGE_TITLES: Record<string, string> = {
  '/dashboard': 'Dashboard',
  '/transactions': 'Transactions',
  '/receipts': 'Receipts',
  '/matches': 'Matches',
  '/review': 'Review queue',
  '/import': 'Import transactions',
  '/exports': 'Export reports',
  '/profile': 'Profile',
  '/company-settings': 'Company settings',
  '/master-data-settings': 'Master data',
  '/settings': 'Settings',
  '/ai-dashboard': 'AI dashboard',
  '/llm-test': 'LLM test',
  '/system': 'System',
  '/auth': 'Sign in',
};

export const pageTitle = (path: string) => `${PAGE_TITLES[path] ?? 'Page'} · Paperlink`;

/**
 * Sets the title of each route and, after a navigation inside the app (not the first load), moves
 * focus to the new page's heading: otherwise focus stays on the clicked link, or falls to <body>,
 * and a screen reader announces nothing. The page may load lazily, so the heading is waited for.
 */
export function usePageFocus() {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    document.title = pageTitle(pathname);
    if (first.current) {
      first.current = false;
      return;
    }
    let tries = 0;
    const timer = setInterval(() => {
      const heading = document.querySelector<HTMLElement>('main h1');
      if (heading || ++tries > 50) clearInterval(timer);
      if (!heading) return;
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }, 50);
    return () => clearInterval(timer);
  }, [pathname]);
}
