import { useState } from 'react';
import { toast } from 'react-toastify';
import { BATCH_SIZE, type BatchResult, type RecordKind } from '../api/ai';
import { useBatch } from '../api/queries';

interface Run extends BatchResult {
  kind: RecordKind;
  at: string;
}

/**
 * Batch duplicate processing (spec section 9: a batch is 100 items): the newest 100
 * transactions or receipts, each checked against all the others; each run's figures are kept.
 */
export function BatchPanel() {
  const [kind, setKind] = useState<RecordKind>('transaction');
  const [runs, setRuns] = useState<Run[]>([]);
  const batch = useBatch();
  const running = batch.isPending;

  const run = async () => {
    try {
      const r = await batch.mutateAsync(kind);
      setRuns((old) => [{ ...r, kind, at: new Date().toLocaleTimeString() }, ...old]);
      toast.success(`Batch processed ${r.processed} ${kind}s: ${r.duplicatesFound} duplicate groups found`);
    } catch {
      toast.error('Error in batch processing');
    }
  };

  const last = runs[0];
  return (
    <div className="card">
      <div className="row spread">
        <h2>Batch processing</h2>
        <div className="row ai-batch-controls">
          <label className="field"><span className="sr-only">Records</span>
            <select value={kind} onChange={(e) => setKind(e.target.value as RecordKind)} disabled={running} aria-label="Records to check">
              <option value="transaction">Transactions</option>
              <option value="receipt">Receipts</option>
            </select>
          </label>
          <button type="button" className="btn primary" disabled={running} onClick={() => void run()}>{running ? 'Processing...' : 'Run duplicate detection'}</button>
        </div>
      </div>
      <p className="muted">Checks the newest {BATCH_SIZE} {kind}s against all the others and records the groups it finds.</p>
      {running && <progress className="ai-progress" aria-label="Batch progress" />}
      {last && (
        <p data-testid="batch-result" aria-live="polite">
          Processed <strong data-testid="batch-processed">{last.processed}</strong> {last.kind}s, duplicates found <strong data-testid="batch-found">{last.duplicatesFound}</strong>
          {typeof last.newGroups === 'number' && <> ({last.newGroups} new)</>}.
        </p>
      )}
      {runs.length > 1 && (
        <table className="table dense" aria-label="Batch runs">
          <thead><tr><th>At</th><th>Records</th><th className="num">Processed</th><th className="num">Duplicates found</th><th className="num">New groups</th></tr></thead>
          <tbody>
            {runs.map((r, i) => <tr key={runs.length - i}><td>{r.at}</td><td>{r.kind}s</td><td className="num">{r.processed}</td><td className="num">{r.duplicatesFound}</td><td className="num">{r.newGroups ?? ''}</td></tr>)}
          </tbody>
        </table>
      )}
    </div>
  );
}
