import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { formatUsd } from '../../../lib/format';
import { Dialog } from '../../../components/Dialog';
import { Spinner } from '../../../components/Spinner';
import { useCanWrite } from '../../../lib/roles';
import { formatFileSize, type Candidate, type Receipt } from '../api/receipts';
import { useReceipt, useReceiptPreview, useReceiptWrites } from '../api/queries';
import { OutlinedPreview, readFields, type FieldKey } from './ReadFields';
import { isStale, STALE_FALLBACK } from '../../../lib/stale';
import { StaleNotice } from '../../../components/StaleNotice';
import '../receipts.css';

const INPUT_PROPS: Record<FieldKey, { type?: string; step?: string }> = { date: { type: 'date' }, amount: { type: 'number', step: '0.01' }, merchant: {}, description: {} };

const formOf = (r: Receipt) => ({ date: r.extracted_date ?? '', amount: r.extracted_amount === null ? '' : String(r.extracted_amount), merchant: r.extracted_merchant ?? '', description: r.extracted_description ?? '' });

/**
 * The details modal: the file with the boxes where the fields were read, the fields editable in
 * place (doubtful ones first and flagged), re-reading, and matching by hand. `onChanged` hears of
 * each change made here (the lists reload by themselves).
 */
export function ReceiptDetails({ id, onClose, onChanged }: { id: string; onClose: () => void; onChanged?: () => void }) {
  const receipt = useReceipt(id);
  return (
    <Dialog title={receipt.data?.original_filename ?? 'Receipt'} onClose={onClose} testId="receipt-details">
      {!receipt.data ? <Spinner /> : <ReceiptBody receipt={receipt.data} reread={receipt.refetch} onClose={onClose} onChanged={() => onChanged?.()} />}
    </Dialog>
  );
}

function ReceiptBody({ receipt, reread, onClose, onChanged }: { receipt: Receipt; reread: () => Promise<{ data?: Receipt }>; onClose: () => void; onChanged: () => void }) {
  const id = receipt.id;
  const preview = useReceiptPreview(receipt);
  const writes = useReceiptWrites();
  const [form, setForm] = useState(() => formOf(receipt));
  const [formError, setFormError] = useState<string | null>(null);
  /** Set when a save was refused because someone else changed the receipt since it was loaded. */
  const [stale, setStale] = useState<string | null>(null);
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [active, setActive] = useState<FieldKey | null>(null);
  // An auditor reads the fields (read-only inputs) and offers no correction, re-reading or matching.
  const canWrite = useCanWrite();

  const openInNewTab = async () => {
    try {
      const url = URL.createObjectURL(await writes.file(id, 'view'));
      window.open(url, '_blank', 'noopener');
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      toast.error('Error opening receipt');
    }
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const amount = form.amount.trim() === '' ? null : Number(form.amount);
    if (amount !== null && !Number.isFinite(amount)) return setFormError('Please enter a valid amount');
    if (form.date && !/^\d{4}-\d{2}-\d{2}$/.test(form.date)) return setFormError('Date must be written YYYY-MM-DD');
    setFormError(null);
    try {
      const body = { extracted_date: form.date || null, extracted_amount: amount, extracted_merchant: form.merchant.trim() || null, extracted_description: form.description.trim() || null };
      await writes.update.mutateAsync({ id, body, revision: receipt.revision });
      setStale(null);
      toast.success('Receipt updated successfully');
      onChanged();
    } catch (err) {
      if (isStale(err)) {
        // Someone else changed the receipt since it was loaded: nothing was overwritten.
        setStale(errorMessage(err, STALE_FALLBACK));
        toast.error(errorMessage(err, STALE_FALLBACK));
      } else setFormError(errorMessage(err, 'Error updating receipt'));
    }
  };

  /** After a 412: the receipt as it now is, in the form (a failed read toasts 'Error loading receipt'). */
  const reload = async () => {
    const { data } = await reread();
    if (!data) return;
    setForm(formOf(data));
    setStale(null);
    setFormError(null);
  };

  const reprocess = async () => {
    try {
      await writes.reprocess.mutateAsync(id);
      toast.info('The receipt will be read again');
      onChanged();
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Error reading the receipt again'));
    }
  };

  const find = async () => {
    try {
      setCandidates((await writes.findMatches.mutateAsync(id)).candidates);
    } catch (err) {
      toast.error(errorMessage(err, 'Error finding matches'));
    }
  };

  const matchTo = async (c: Candidate) => {
    try {
      await writes.matchTo.mutateAsync({ id, transactionId: c.transaction_id });
      toast.success('Match confirmed');
      onChanged();
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Error matching receipt'));
    }
  };

  const fields = readFields(receipt);

  return (
    <>
      <div className="modal-body">
        <div className="preview">{preview ? <OutlinedPreview file={preview} alt={`Receipt ${receipt.original_filename}`} fields={fields} active={active} /> : <Spinner label="Loading preview..." />}</div>
        <div>
          <dl className="details">
            <dt>Status</dt><dd>{receipt.processing_status}{receipt.failure_reason ? `: ${receipt.failure_reason}` : ''}</dd>
            <dt>File size</dt><dd>{formatFileSize(receipt.file_size)}</dd>
            <dt>Uploaded</dt><dd>{new Date(receipt.upload_date).toLocaleString()}</dd>
            <dt>Amount</dt><dd>{formatUsd(receipt.extracted_amount)}</dd>
          </dl>
          <form onSubmit={(e) => (canWrite ? save(e) : e.preventDefault())} aria-label={canWrite ? 'Correct the fields read' : 'Fields read'} noValidate>
            {fields.some((f) => f.doubtful) && <p className="muted doubtful-note">Fields marked “Check” were read without certainty: please compare them with the receipt.</p>}
            {fields.map((f) => (
              <label key={f.key} className={`field read-field${f.doubtful ? ' doubtful' : ''}`} data-testid={`field-${f.key}`} onMouseEnter={() => setActive(f.key)} onMouseLeave={() => setActive(null)}>
                <span className="label">
                  {f.label}
                  {f.doubtful && <span className="badge warning" title={f.confidence === null ? 'Not read' : `Read with ${Math.round(f.confidence * 100)} % confidence`}>Check</span>}
                  {f.corrected && <span className="badge success">Corrected</span>}
                </span>
                <input {...INPUT_PROPS[f.key]} readOnly={!canWrite} value={form[f.key]} aria-invalid={f.doubtful || undefined} onFocus={() => setActive(f.key)} onBlur={() => setActive(null)} onChange={(e) => setForm({ ...form, [f.key]: e.target.value })} />
              </label>
            ))}
            {formError && <div className="field-error" role="alert">{formError}</div>}
            {stale && <StaleNotice message={stale} onReload={reload} />}
            {canWrite && <button type="submit" className="btn primary">Save corrections</button>}
          </form>
          {candidates && (
            <div className="candidates">
              <h3>Possible transactions</h3>
              {candidates.length === 0 ? <p className="muted">No transaction comes close.</p> : (
                <ul>
                  {candidates.map((c) => (
                    <li key={c.transaction_id}>
                      <span>{c.transaction_date} · {c.description} · {formatUsd(c.transaction_amount)} · <strong>{c.match_confidence}%</strong></span>
                      <span className="muted"> {c.evidence.reasons.join('; ')}</span>
                      <button type="button" className="btn small" disabled={c.already_matched} onClick={() => matchTo(c)} aria-label={`Match to ${c.description}`}>{c.already_matched ? 'Matched elsewhere' : 'Match'}</button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
      </div>
      <div className="row modal-actions">
        <button type="button" className="btn" onClick={openInNewTab}>Open in New Tab</button>
        {canWrite && receipt.processing_status === 'completed' && receipt.match_count === 0 && <button type="button" className="btn" onClick={find}>Find Matches</button>}
        {canWrite && (receipt.processing_status === 'completed' || receipt.processing_status === 'failed') && <button type="button" className="btn" onClick={reprocess}>Read Again</button>}
        <button type="button" className="btn primary" onClick={onClose}>Close</button>
      </div>
    </>
  );
}
