import type { FilterUser } from '../../../lib/company-users';
import type { MasterItem } from '../../../lib/masterdata-api';
import { DEFAULT_FILTERS, type TransactionFilters } from '../api/transactions';

const SORTS: Array<[string, string]> = [
  ['transaction_date', 'Date'],
  ['description', 'Description'],
  ['amount', 'Amount'],
  ['cost_code_name', 'Cost Code Name'],
  ['created_at', 'Created'],
];

/** The admin filter panel of /transactions (spec section 4): every change applies at once. */
export function TransactionFilterForm({ filters, users, categories, onChange }: {
  filters: TransactionFilters;
  users: FilterUser[];
  categories: MasterItem[];
  onChange: (next: TransactionFilters) => void;
}) {
  const set = <K extends keyof TransactionFilters>(key: K, value: TransactionFilters[K]) => onChange({ ...filters, [key]: value });
  return (
    <form id="transaction-filters" className="card filters" aria-label="Transaction filters" onSubmit={(e) => e.preventDefault()}>
      <label className="field"><span className="label">User</span>
        <select value={filters.userId} onChange={(e) => set('userId', e.target.value)}>
          <option value="">All users</option>
          {users.map((u) => <option key={u.id} value={u.id}>{u.fullName} ({u.role})</option>)}
        </select>
      </label>
      <label className="field"><span className="label">Start date</span><input type="date" value={filters.startDate} onChange={(e) => set('startDate', e.target.value)} /></label>
      <label className="field"><span className="label">End date</span><input type="date" value={filters.endDate} onChange={(e) => set('endDate', e.target.value)} /></label>
      <label className="field"><span className="label">Category</span>
        <select value={filters.category} onChange={(e) => set('category', e.target.value)}>
          <option value="">All categories</option>
          {categories.map((c) => <option key={c.id} value={c.name}>{c.name}</option>)}
        </select>
      </label>
      <label className="field"><span className="label">Min amount</span><input type="number" step="0.01" value={filters.minAmount} onChange={(e) => set('minAmount', e.target.value)} /></label>
      <label className="field"><span className="label">Max amount</span><input type="number" step="0.01" value={filters.maxAmount} onChange={(e) => set('maxAmount', e.target.value)} /></label>
      <label className="field"><span className="label">Status</span>
        <select value={filters.status} onChange={(e) => set('status', e.target.value as TransactionFilters['status'])}>
          <option value="">All</option><option value="matched">Matched</option><option value="unmatched">Unmatched</option>
        </select>
      </label>
      <label className="field"><span className="label">Sort by</span>
        <select value={filters.sortBy} onChange={(e) => set('sortBy', e.target.value)}>
          {SORTS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
        </select>
      </label>
      <label className="field"><span className="label">Sort order</span>
        <select value={filters.sortOrder} onChange={(e) => set('sortOrder', e.target.value as 'asc' | 'desc')}>
          <option value="desc">Descending</option><option value="asc">Ascending</option>
        </select>
      </label>
      <button type="button" className="btn" onClick={() => onChange(DEFAULT_FILTERS)}>Clear Filters</button>
      <p className="muted filter-hint">Amounts compare sizes: 10 to 50 finds expenses and refunds of that size.</p>
    </form>
  );
}
