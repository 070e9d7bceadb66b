import { formatUsd } from '../../../lib/format';
import type { Preview, QuickAnalytics } from '../api/exports';
import { describeDateRange, formatBytes, PREVIEW_LIMIT } from '../rules';

const MAX_COLUMNS = 8;
/** Fields that mean nothing in a table: the row's kind, ids, file bytes, links. */
const HIDDEN = new Set(['id', 'type', 'attachments', 'link']);
const isCents = (key: string) => /Cents$/.test(key);
const title = (key: string) => key.replace(/Cents$/, '').replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/** A preview cell: money kept in cents shown in dollars, lists joined, nothing shown as a dash. */
export function previewCell(key: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'number' && isCents(key)) return formatUsd(v / 100);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === 'string' || typeof x === 'number' ? String(x) : JSON.stringify(x))).join(', ') : '—';
  return JSON.stringify(v);
}

/** The columns of the preview: the record fields in the order the server sends them. */
export function previewColumns(records: Array<Record<string, unknown>>): string[] {
  const seen: string[] = [];
  for (const r of records) for (const k of Object.keys(r)) if (!HIDDEN.has(k) && !seen.includes(k)) seen.push(k);
  return seen.slice(0, MAX_COLUMNS);
}

/** Admin data preview (spec sections 2 and 9): totals, period, size and at most 10 records. */
export function DataPreview({ preview }: { preview: Preview }) {
  const records = preview.records.slice(0, PREVIEW_LIMIT);
  const columns = previewColumns(records);
  const size = typeof preview.estimatedSize === 'number' ? formatBytes(preview.estimatedSize) : preview.estimatedSize;
  return (
    <div className="card" data-testid="export-preview">
      <h2>Data preview</h2>
      <div className="stat-cards">
        <div className="stat"><span className="stat-value" data-testid="preview-total">{preview.totalRecords}</span><span className="muted">Total records</span></div>
        <div className="stat"><span className="stat-value" style={{ fontSize: '1.1em' }} data-testid="preview-range">{describeDateRange(preview.dateRange) ?? 'All dates'}</span><span className="muted">Date range</span></div>
        <div className="stat"><span className="stat-value" data-testid="preview-size">{size ?? '—'}</span><span className="muted">Estimated size</span></div>
      </div>
      {records.length === 0 ? (
        <p className="empty">No records match these options.</p>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Preview records">
            <thead><tr>{columns.map((c) => <th key={c} scope="col">{title(c)}</th>)}</tr></thead>
            <tbody>
              {records.map((r, i) => (
                <tr key={typeof r.id === 'string' ? r.id : i}>{columns.map((c) => <td key={c} className={typeof r[c] === 'number' ? 'num' : undefined}>{previewCell(c, r[c])}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {preview.totalRecords > records.length && <p className="muted">Showing the first {records.length} of {preview.totalRecords} records.</p>}
    </div>
  );
}

const pct = (n: number | undefined) => (n === undefined ? '—' : `${Math.round(n * 10) / 10}%`);

/** Admin quick analytics: the company's spending and matching at a glance. */
export function QuickAnalyticsCard({ data }: { data: QuickAnalytics }) {
  const f = data.financial;
  const p = data.processing;
  return (
    <div className="card" data-testid="quick-analytics">
      <h2>Quick analytics</h2>
      <div className="stat-cards">
        <div className="stat"><span className="stat-value">{formatUsd(f.totalExpenses) || '—'}</span><span className="muted">Total expenses</span></div>
        <div className="stat"><span className="stat-value">{formatUsd(f.matchedExpenses) || '—'}</span><span className="muted">Matched expenses</span></div>
        <div className="stat"><span className="stat-value">{formatUsd(f.unmatchedExpenses) || '—'}</span><span className="muted">Unmatched expenses</span></div>
        <div className="stat"><span className="stat-value">{pct(f.matchRate)}</span><span className="muted">Match rate</span></div>
        {p?.totalReceipts !== undefined && <div className="stat"><span className="stat-value">{p.processedReceipts ?? 0} / {p.totalReceipts}</span><span className="muted">Receipts processed</span></div>}
      </div>
    </div>
  );
}
