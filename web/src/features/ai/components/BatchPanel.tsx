import { useRef, useState } from 'react';
import { toast } from 'react-toastify';
import { aiApi, BATCH_SIZE } from '../api/ai';
import { useInvalidateDuplicates } from '../api/queries';
import { runBatches, type BatchProgress } from '../batches';

/** Batch duplicate processing (spec section 9: batches of 100): runs batch after batch, with progress. */
export function BatchPanel() {
  const [progress, setProgress] = useState<BatchProgress | null>(null);
  const [running, setRunning] = useState(false);
  const stop = useRef(false);
  const invalidate = useInvalidateDuplicates();

  const run = async () => {
    stop.current = false;
    setRunning(true);
    setProgress({ batches: 0, processed: 0, duplicatesFound: 0, total: null, done: false });
    try {
      const final = await runBatches((offset) => aiApi.batch(offset), setProgress, () => stop.current);
      toast.success(`Batch processing finished: ${final.processed} processed, ${final.duplicatesFound} duplicates found`);
    } catch {
      toast.error('Error in batch processing');
    } finally {
      setRunning(false);
      void invalidate();
    }
  };

  const share = progress?.total ? Math.min(1, progress.processed / progress.total) : null;
  return (
    <div className="card">
      <div className="row spread">
        <h2>Batch processing</h2>
        {running
          ? <button type="button" className="btn" onClick={() => (stop.current = true)}>Stop</button>
          : <button type="button" className="btn primary" onClick={() => void run()}>Run duplicate detection</button>}
      </div>
      <p className="muted">Checks every transaction for duplicates, {BATCH_SIZE} at a time.</p>
      {progress && (
        <div className="ai-batch" aria-live="polite">
          {running && (share === null ? <progress aria-label="Batch progress" /> : <progress aria-label="Batch progress" max={1} value={share} />)}
          <p data-testid="batch-result">
            Processed <strong data-testid="batch-processed">{progress.processed}</strong>
            {progress.total !== null && <> of {progress.total}</>}, duplicates found <strong data-testid="batch-found">{progress.duplicatesFound}</strong>
            {' '}({progress.batches} batch{progress.batches === 1 ? '' : 'es'}){progress.done ? '. Done.' : running ? '...' : '. Stopped.'}
          </p>
        </div>
      )}
    </div>
  );
}
