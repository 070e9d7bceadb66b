/** Previous / Next with 'Page X of Y (N total)' (spec section 2); hidden when there is nothing to page. */
export function Pagination({ page, pages, total, onPage }: { page: number; pages: number; total: number; onPage: (page: number) => void }) {
  if (total <= 0) return null;
  return (
    <nav className="pagination row" aria-label="Pagination">
      <button type="button" className="btn small" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span data-testid="page-info">Page {page} of {pages} ({total} total)</span>
      <button type="button" className="btn small" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}
