import { useState, type ReactNode } from 'react';
import { ReceiptThumbnail } from '../../../components/ReceiptThumbnail';
import { Spinner } from '../../../components/Spinner';
import { useTransactionReceipts } from '../api/queries';
import { formatUsd } from '../../../lib/format';
import type { MasterLists } from '../../../lib/masterdata-queries';
import type { Transaction } from '../api/transactions';
import type { EditForm } from '../edit';
import { costCodesFor, onCategoryChange, onCostCodeChange, type CostCode } from '../linkage';

/** Keeps a value that is not in the list (an imported name) selectable. */
function withCurrent(names: string[], current: string): string[] {
  return current && !names.some((n) => n.toLowerCase() === current.toLowerCase()) ? [current, ...names] : names;
}

export interface RowEdit {
  form: EditForm;
  saving: boolean;
  onEdit: (patch: Partial<EditForm>) => void;
  onSave: () => void;
  onCancel: () => void;
}

/** One row of /transactions, shown or edited in place with the category and cost code linkage (spec section 4). */
export function TransactionRow({ t, edit, lists, codes, isAdmin, canWrite, onStartEdit, onDelete, actions }: {
  t: Transaction;
  /** Set while this row is the one being edited. */
  edit: RowEdit | null;
  lists: MasterLists;
  codes: CostCode[];
  isAdmin: boolean;
  canWrite: boolean;
  onStartEdit: () => void;
  onDelete: () => void;
  actions?: ReactNode;
}) {
  const e = edit?.form ?? null;
  const matched = t.receipt_count > 0;
  const [open, setOpen] = useState(false);
  return (
    <>
    <tr data-testid={`tx-${t.id}`} className={e ? 'editing' : undefined}>
      <td>{t.transaction_date}</td>
      <td>{t.external_transaction_id || 'N/A'}</td>
      <td>{e ? <input aria-label="Sales tax" type="number" step="0.01" value={e.salesTax} onChange={(v) => edit!.onEdit({ salesTax: v.target.value })} /> : formatUsd(t.sales_tax)}</td>
      <td className={t.amount < 0 ? 'num debit' : 'num credit'}>{e ? <input aria-label="Amount" type="number" step="0.01" value={e.amount} onChange={(v) => edit!.onEdit({ amount: v.target.value })} /> : formatUsd(t.amount)}</td>
      <td>{e ? (
        <select aria-label="Job number" value={e.jobNumber} onChange={(v) => edit!.onEdit({ jobNumber: v.target.value })}>
          <option value="">Select job number</option>
          {withCurrent(lists.jobNumbers.map((j) => j.name), e.jobNumber).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      ) : t.job_number_name ?? ''}</td>
      <td>{e ? (
        <select aria-label="Cost code" value={e.costCode} onChange={(v) => edit!.onEdit(onCostCodeChange(v.target.value, e.category, codes))}>
          <option value="">Select cost code</option>
          {withCurrent(costCodesFor(e.category, codes).map((c) => c.name), e.costCode).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      ) : t.cost_code_name ?? ''}</td>
      <td>{e ? (
        <select aria-label="Category" value={e.category} onChange={(v) => edit!.onEdit(onCategoryChange(v.target.value, e.costCode, codes))}>
          <option value="">Select category</option>
          {withCurrent(lists.categories.map((c) => c.name), e.category).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      ) : t.category_name ?? ''}</td>
      <td>{e ? <input aria-label="Description" value={e.description} onChange={(v) => edit!.onEdit({ description: v.target.value })} /> : t.description}</td>
      <td><span className={`badge ${matched ? 'success' : 'warning'}`}>{matched ? 'Matched' : 'Unmatched'}</span></td>
      <td>{matched ? (
        <button type="button" className="btn small" aria-expanded={open} aria-controls={`tx-receipts-${t.id}`} aria-label={`${open ? 'Hide' : 'Show'} the receipts of ${t.description}`} title={t.receipts} onClick={() => setOpen((o) => !o)}>
          {t.receipt_count} {open ? '▴' : '▾'}
        </button>
      ) : 0}</td>
      {isAdmin && <td>{[t.created_by_first_name, t.created_by_last_name].filter(Boolean).join(' ')}</td>}
      <td className="actions">
        {edit ? (
          <>
            <button type="button" className="btn primary small" disabled={edit.saving} onClick={edit.onSave}>Save</button>
            <button type="button" className="btn small" onClick={edit.onCancel}>Cancel</button>
          </>
        ) : (
          <>
            {canWrite && <button type="button" className="btn small" aria-label={`Edit ${t.description}`} onClick={onStartEdit}>Edit</button>}
            {actions}
            {isAdmin && canWrite && <button type="button" className="btn danger small" aria-label={`Delete ${t.description}`} onClick={onDelete}>Delete</button>}
          </>
        )}
      </td>
    </tr>
    {matched && open && (
      <tr className="row-detail" id={`tx-receipts-${t.id}`}>
        <td colSpan={isAdmin ? 12 : 11}><LineReceipts id={t.id} /></td>
      </tr>
    )}
    </>
  );
}

/** The images of the receipts confirmed on a line, shown when its row is expanded. */
function LineReceipts({ id }: { id: string }) {
  const q = useTransactionReceipts(id);
  if (!q.data) return q.isError ? <p className="muted">The receipts could not be loaded.</p> : <Spinner label="Loading receipts..." />;
  if (q.data.length === 0) return <p className="muted">No receipt of yours is on this line.</p>;
  return (
    <ul className="line-receipts" aria-label="Receipts on this line">
      {q.data.map((r) => <li key={r.id} className="receipt-cell"><ReceiptThumbnail receiptId={r.id} name={r.name} /><span>{r.name}</span></li>)}
    </ul>
  );
}
