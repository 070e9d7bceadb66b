import { useState, type ReactNode } from 'react';
import { Pagination } from '../../../components/Pagination';
import { SearchBox, useUrlSearch } from '../../../components/SearchBox';
import { Spinner } from '../../../components/Spinner';
import { StaleNotice } from '../../../components/StaleNotice';
import { useCanWrite, useSeesWholeCompany } from '../../../lib/roles';
import { useCompanyUsersForFilter } from '../../../lib/company-users';
import { useMasterLists } from '../../../lib/masterdata-queries';
import { useErrorToast } from '../../../lib/query-scope';
import { DEFAULT_FILTERS, PAGE_SIZE, type Transaction, type TransactionFilters } from '../api/transactions';
import { useTransactionPage } from '../api/queries';
import { TransactionFilterForm } from '../components/TransactionFilters';
import { TransactionRow } from '../components/TransactionRow';
import { useTransactionEditor } from '../components/useTransactionEditor';

/**
 * Spec sections 2, 4 and 5, /transactions. `rowActions` adds the actions other features offer
 * on a row (the app passes the AI analysis and duplicate check); they sit between Edit and Delete.
 */
export function TransactionsPage({ rowActions }: { rowActions?: (t: Transaction) => ReactNode } = {}) {
  // Admins and auditors read every member's transactions (filters by user, Created By); an
  // auditor edits and deletes none.
  const isAdmin = useSeesWholeCompany();
  const canWrite = useCanWrite();
  const [filters, setFilters] = useState<TransactionFilters>(DEFAULT_FILTERS);
  const [q] = useUrlSearch();
  // The page belongs to one search: a new search starts at page 1.
  const [paging, setPaging] = useState({ q, page: 1 });
  const page = paging.q === q ? paging.page : 1;
  const setPage = (n: number) => setPaging({ q, page: n });
  const [showFilters, setShowFilters] = useState(false);
  const { data, failed } = useTransactionPage(page, { ...filters, q });
  const users = useCompanyUsersForFilter(isAdmin);
  const lists = useMasterLists();
  useErrorToast(lists, 'Failed to load master data for dropdowns.');
  const editor = useTransactionEditor();
  const codes = lists.costCodes.map((c) => ({ name: c.name, category_name: c.category_name ?? null }));

  /** Changing a filter resets the page to 1 (spec section 4). */
  const filter = (next: TransactionFilters) => {
    setFilters(next);
    setPage(1);
  };

  return (
    <section className="page">
      <div className="row spread">
        <h1>Transactions</h1>
        {isAdmin && (
          <button type="button" className="btn" aria-expanded={showFilters} aria-controls="transaction-filters" onClick={() => setShowFilters((s) => !s)}>
            {showFilters ? 'Hide Filters' : 'Show Filters'}
          </button>
        )}
      </div>

      <SearchBox label="Search transactions" />
      {isAdmin && showFilters && <TransactionFilterForm filters={filters} users={users} categories={lists.categories} onChange={filter} />}

      {editor.error && <div className="form-error" role="alert">{editor.error}</div>}
      {editor.stale && editor.editing && <StaleNotice message={editor.stale} onReload={editor.reload} />}
      {!data ? <Spinner label="Loading transactions..." /> : data.rows.length === 0 ? (
        <div className="card empty" role="status">
          <p>{failed ? 'Error loading transactions' : q.trim() ? `No transactions match "${q.trim()}".` : 'No transactions found.'}</p>
          {isAdmin && filters.userId && <p className="muted">Try adjusting your filters or selecting a different user.</p>}
        </div>
      ) : (
        <div className="table-scroll">
          <table className="table dense" aria-label="Transactions">
            <thead>
              <tr>
                <th>Date</th><th>Transaction ID</th><th>Sales Tax</th><th>Amount</th><th>Job Number</th><th>Cost Code</th><th>Cost Code Name</th><th>Description</th><th>Receipt Status</th><th>Receipts</th>{isAdmin && <th>Created By</th>}<th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((t) => (
                <TransactionRow
                  key={t.id}
                  t={t}
                  edit={editor.editing?.id === t.id ? { form: editor.editing.form, saving: editor.saving, onEdit: editor.edit, onSave: () => void editor.save(), onCancel: editor.cancel } : null}
                  lists={lists}
                  codes={codes}
                  isAdmin={isAdmin}
                  canWrite={canWrite}
                  onStartEdit={() => editor.start(t)}
                  onDelete={() => void editor.remove(t)}
                  actions={rowActions?.(t)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pagination page={page} pages={data.pages} total={data.total} onPage={setPage} />}
      <p className="sr-only">{PAGE_SIZE} transactions per page.</p>
    </section>
  );
}
export default TransactionsPage;
