import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Pagination } from '../../../components/Pagination';
import { Spinner } from '../../../components/Spinner';
import { useCanWrite, useSeesWholeCompany } from '../../../lib/roles';
import { masterApi, type MasterItem } from '../../../lib/masterdata-api';
import { DEFAULT_FILTERS, PAGE_SIZE, transactionsApi, type Transaction, type TransactionFilters } from '../api/transactions';
import { costCodesFor, onCategoryChange, onCostCodeChange } from '../linkage';
import { validateEdit, type EditForm } from '../edit';
import { isStale, STALE_FALLBACK } from '../../../lib/stale';
import { StaleNotice } from '../../../components/StaleNotice';

import { formatUsd } from '../../../lib/format';

const SORTS: Array<[string, string]> = [
  ['transaction_date', 'Date'],
  ['description', 'Description'],
  ['amount', 'Amount'],
  ['cost_code_name', 'Cost Code Name'],
  ['created_at', 'Created'],
];

interface Lists {
  categories: MasterItem[];
  jobNumbers: MasterItem[];
  costCodes: MasterItem[];
}

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
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ rows: Transaction[]; pages: number; total: number } | null>(null);
  const [loadError, setLoadError] = useState(false);
  const [showFilters, setShowFilters] = useState(false);
  const [users, setUsers] = useState<Array<{ id: string; fullName: string; role: string }>>([]);
  const [lists, setLists] = useState<Lists>({ categories: [], jobNumbers: [], costCodes: [] });
  const [editing, setEditing] = useState<{ id: string; revision?: number; form: EditForm } | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  /** Set when a save was refused because someone else changed the transaction since it was loaded. */
  const [stale, setStale] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const r = await transactionsApi.list(page, filters);
      setData({ rows: r.transactions, pages: Math.max(1, r.pagination.pages), total: r.pagination.total });
      setLoadError(false);
    } catch {
      setLoadError(true);
      setData((d) => d ?? { rows: [], pages: 1, total: 0 });
      toast.error('Error loading transactions');
    }
  }, [page, filters]);
  useEffect(() => void load(), [load]);

  useEffect(() => {
    Promise.all([masterApi.list('categories'), masterApi.list('job_numbers'), masterApi.list('cost_codes')])
      .then(([categories, jobNumbers, costCodes]) => setLists({ categories, jobNumbers, costCodes }))
      .catch(() => toast.error('Failed to load master data for dropdowns.'));
  }, []);
  useEffect(() => {
    if (isAdmin) transactionsApi.userFilter().then(setUsers).catch(() => setUsers([]));
  }, [isAdmin]);

  /** Changing a filter resets the page to 1 (spec section 4). */
  const setFilter = <K extends keyof TransactionFilters>(key: K, value: TransactionFilters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    setPage(1);
  };

  const startEdit = (t: Transaction) => {
    setEditError(null);
    setStale(null);
    setEditing({
      id: t.id,
      revision: t.revision,
      form: {
        description: t.description,
        category: t.category_name ?? '',
        jobNumber: t.job_number_name ?? '',
        costCode: t.cost_code_name ?? '',
        amount: String(t.amount),
        salesTax: t.sales_tax === null ? '' : String(t.sales_tax),
      },
    });
  };

  const save = async () => {
    if (!editing) return;
    const checked = validateEdit(editing.form);
    if (!checked.ok) {
      setEditError(checked.error);
      toast.error(checked.error);
      return;
    }
    setSaving(true);
    try {
      // The revision the form was filled from: someone else's change since is not overwritten.
      await transactionsApi.update(editing.id, checked.body, editing.revision);
      toast.success('Transaction updated successfully');
      setEditing(null);
      await load();
    } catch (e) {
      if (isStale(e)) setStale(errorMessage(e, STALE_FALLBACK));
      toast.error(errorMessage(e, 'Error updating transaction'));
    } finally {
      setSaving(false);
    }
  };

  /** After a 412: the transaction as it now is, in the form, and the list again. */
  const reloadEditing = async () => {
    if (!editing) return;
    try {
      startEdit(await transactionsApi.get(editing.id));
      await load();
    } catch (e) {
      toast.error(errorMessage(e, 'Error loading transactions'));
    }
  };

  const remove = async (t: Transaction) => {
    if (!window.confirm(`Are you sure you want to delete the transaction "${t.description}"?`)) return;
    try {
      await transactionsApi.remove(t.id);
      toast.success('Transaction deleted successfully');
      await load();
    } catch {
      toast.error('Error deleting transaction');
    }
  };

  const edit = (patch: Partial<EditForm>) => setEditing((e) => (e ? { ...e, form: { ...e.form, ...patch } } : e));
  const codes = lists.costCodes.map((c) => ({ name: c.name, category_name: c.category_name ?? null }));

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

      {isAdmin && showFilters && (
        <form id="transaction-filters" className="card filters" aria-label="Transaction filters" onSubmit={(e) => e.preventDefault()}>
          <label className="field"><span className="label">User</span>
            <select value={filters.userId} onChange={(e) => setFilter('userId', e.target.value)}>
              <option value="">All users</option>
              {users.map((u) => <option key={u.id} value={u.id}>{u.fullName} ({u.role})</option>)}
            </select>
          </label>
          <label className="field"><span className="label">Start date</span><input type="date" value={filters.startDate} onChange={(e) => setFilter('startDate', e.target.value)} /></label>
          <label className="field"><span className="label">End date</span><input type="date" value={filters.endDate} onChange={(e) => setFilter('endDate', e.target.value)} /></label>
          <label className="field"><span className="label">Category</span>
            <select value={filters.category} onChange={(e) => setFilter('category', e.target.value)}>
              <option value="">All categories</option>
              {lists.categories.map((c) => <option key={c.id} value={c.name}>{c.name}</option>)}
            </select>
          </label>
          <label className="field"><span className="label">Min amount</span><input type="number" step="0.01" value={filters.minAmount} onChange={(e) => setFilter('minAmount', e.target.value)} /></label>
          <label className="field"><span className="label">Max amount</span><input type="number" step="0.01" value={filters.maxAmount} onChange={(e) => setFilter('maxAmount', e.target.value)} /></label>
          <label className="field"><span className="label">Status</span>
            <select value={filters.status} onChange={(e) => setFilter('status', e.target.value as TransactionFilters['status'])}>
              <option value="">All</option><option value="matched">Matched</option><option value="unmatched">Unmatched</option>
            </select>
          </label>
          <label className="field"><span className="label">Sort by</span>
            <select value={filters.sortBy} onChange={(e) => setFilter('sortBy', e.target.value)}>
              {SORTS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
            </select>
          </label>
          <label className="field"><span className="label">Sort order</span>
            <select value={filters.sortOrder} onChange={(e) => setFilter('sortOrder', e.target.value as 'asc' | 'desc')}>
              <option value="desc">Descending</option><option value="asc">Ascending</option>
            </select>
          </label>
          <button type="button" className="btn" onClick={() => { setFilters(DEFAULT_FILTERS); setPage(1); }}>Clear Filters</button>
          <p className="muted filter-hint">Amounts compare sizes: 10 to 50 finds expenses and refunds of that size.</p>
        </form>
      )}

      {editError && <div className="form-error" role="alert">{editError}</div>}
      {stale && editing && <StaleNotice message={stale} onReload={reloadEditing} />}
      {!data ? <Spinner label="Loading transactions..." /> : data.rows.length === 0 ? (
        <div className="card empty" role="status">
          <p>{loadError ? 'Error loading transactions' : 'No transactions found.'}</p>
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
              {data.rows.map((t) => {
                const e = editing?.id === t.id ? editing.form : null;
                const matched = t.receipt_count > 0;
                return (
                  <tr key={t.id} data-testid={`tx-${t.id}`} className={e ? 'editing' : undefined}>
                    <td>{t.transaction_date}</td>
                    <td>{t.external_transaction_id || 'N/A'}</td>
                    <td>{e ? <input aria-label="Sales tax" type="number" step="0.01" value={e.salesTax} onChange={(v) => edit({ salesTax: v.target.value })} /> : formatUsd(t.sales_tax)}</td>
                    <td className={t.amount < 0 ? 'num debit' : 'num credit'}>{e ? <input aria-label="Amount" type="number" step="0.01" value={e.amount} onChange={(v) => edit({ amount: v.target.value })} /> : formatUsd(t.amount)}</td>
                    <td>{e ? (
                      <select aria-label="Job number" value={e.jobNumber} onChange={(v) => edit({ jobNumber: v.target.value })}>
                        <option value="">Select job number</option>
                        {withCurrent(lists.jobNumbers.map((j) => j.name), e.jobNumber).map((n) => <option key={n} value={n}>{n}</option>)}
                      </select>
                    ) : t.job_number_name ?? ''}</td>
                    <td>{e ? (
                      <select aria-label="Cost code" value={e.costCode} onChange={(v) => edit(onCostCodeChange(v.target.value, e.category, codes))}>
                        <option value="">Select cost code</option>
                        {withCurrent(costCodesFor(e.category, codes).map((c) => c.name), e.costCode).map((n) => <option key={n} value={n}>{n}</option>)}
                      </select>
                    ) : t.cost_code_name ?? ''}</td>
                    <td>{e ? (
                      <select aria-label="Category" value={e.category} onChange={(v) => edit(onCategoryChange(v.target.value, e.costCode, codes))}>
                        <option value="">Select category</option>
                        {withCurrent(lists.categories.map((c) => c.name), e.category).map((n) => <option key={n} value={n}>{n}</option>)}
                      </select>
                    ) : t.category_name ?? ''}</td>
                    <td>{e ? <input aria-label="Description" value={e.description} onChange={(v) => edit({ description: v.target.value })} /> : t.description}</td>
                    <td><span className={`badge ${matched ? 'success' : 'warning'}`}>{matched ? 'Matched' : 'Unmatched'}</span></td>
                    <td>{t.receipt_count > 0 ? <span title={t.receipts}>{t.receipt_count}</span> : 0}</td>
                    {isAdmin && <td>{[t.created_by_first_name, t.created_by_last_name].filter(Boolean).join(' ')}</td>}
                    <td className="actions">
                      {e ? (
                        <>
                          <button type="button" className="btn primary small" disabled={saving} onClick={save}>Save</button>
                          <button type="button" className="btn small" onClick={() => { setEditing(null); setEditError(null); setStale(null); }}>Cancel</button>
                        </>
                      ) : (
                        <>
                          {canWrite && <button type="button" className="btn small" aria-label={`Edit ${t.description}`} onClick={() => startEdit(t)}>Edit</button>}
                          {rowActions?.(t)}
                          {isAdmin && canWrite && <button type="button" className="btn danger small" aria-label={`Delete ${t.description}`} onClick={() => remove(t)}>Delete</button>}
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pagination page={page} pages={data.pages} total={data.total} onPage={setPage} />}
      <p className="sr-only">{PAGE_SIZE} transactions per page.</p>
    </section>
  );
}

/** Keeps a value that is not in the list (an imported name) selectable. */
function withCurrent(names: string[], current: string): string[] {
  return current && !names.some((n) => n.toLowerCase() === current.toLowerCase()) ? [current, ...names] : names;
}
export default TransactionsPage;
