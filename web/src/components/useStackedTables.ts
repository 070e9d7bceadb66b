import { useEffect, type RefObject } from 'react';

/**
 * Gives every cell of the tables under `root` its column's heading as `data-label`, so that on a
 * narrow screen (styles.css) each row shows as a card of "heading: value" lines. Tables render
 * rows as they load, page and expand, so the labels follow every change of the tree.
 */
export function useStackedTables(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const label = () => {
      for (const table of el.querySelectorAll('table.table')) {
        const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
        for (const row of table.querySelectorAll('tbody tr')) {
          for (const cell of (row as HTMLTableRowElement).cells) {
            const want = cell.colSpan > 1 ? '' : heads[cell.cellIndex] ?? '';
            if (cell.getAttribute('data-label') !== want) cell.setAttribute('data-label', want);
          }
        }
      }
    };
    label();
    const observer = new MutationObserver(label);
    observer.observe(el, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [root]);
}
