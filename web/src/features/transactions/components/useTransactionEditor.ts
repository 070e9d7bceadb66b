import { useState } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { isStale, STALE_FALLBACK } from '../../../lib/stale';
import type { Transaction } from '../api/transactions';
import { useTransactionWrites } from '../api/queries';
import { validateEdit, type EditForm } from '../edit';

export interface Editing {
  id: string;
  /** The revision the form was filled from: someone else's change since is not overwritten. */
  revision?: number;
  form: EditForm;
}

const formOf = (t: Transaction): Editing => ({
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

/**
 * The inline edit of one row at a time (spec section 5) and deletion: the form as typed, its
 * error, and the notice shown when a save was refused because someone else changed the
 * transaction since it was loaded (412).
 */
export function useTransactionEditor() {
  const writes = useTransactionWrites();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);

  const start = (t: Transaction) => {
    setError(null);
    setStale(null);
    setEditing(formOf(t));
  };
  const cancel = () => {
    setEditing(null);
    setError(null);
    setStale(null);
  };
  const edit = (patch: Partial<EditForm>) => setEditing((e) => (e ? { ...e, form: { ...e.form, ...patch } } : e));

  const save = async () => {
    if (!editing) return;
    const checked = validateEdit(editing.form);
    if (!checked.ok) {
      setError(checked.error);
      toast.error(checked.error);
      return;
    }
    try {
      await writes.update.mutateAsync({ id: editing.id, body: checked.body, revision: editing.revision });
      toast.success('Transaction updated successfully');
      setEditing(null);
    } catch (e) {
      if (isStale(e)) setStale(errorMessage(e, STALE_FALLBACK));
      toast.error(errorMessage(e, 'Error updating transaction'));
    }
  };

  /** After a 412: the transaction as it now is, in the form, and the list again. */
  const reload = async () => {
    if (!editing) return;
    try {
      start(await writes.reread(editing.id));
    } catch (e) {
      toast.error(errorMessage(e, 'Error loading transactions'));
    }
  };

  const remove = async (t: Transaction) => {
    if (!window.confirm(`Are you sure you want to delete the transaction "${t.description}"?`)) return;
    try {
      await writes.remove.mutateAsync(t.id);
      toast.success('Transaction deleted successfully');
    } catch {
      toast.error('Error deleting transaction');
    }
  };

  return { editing, error, stale, saving: writes.update.isPending, start, cancel, edit, save, reload, remove };
}
