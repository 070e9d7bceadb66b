import { BATCH_SIZE, type BatchResult } from './api/ai';

export interface BatchProgress {
  batches: number;
  processed: number;
  duplicatesFound: number;
  /** Known when the server says how many remain. */
  total: number | null;
  done: boolean;
}

/** Guards against a server that never reports an end. */
export const MAX_BATCHES = 1000;

/**
 * Runs duplicate batches of 100 one after another: the next batch starts where the last one
 * ended, and the run ends on a short batch, when nothing remains, or when asked to stop.
 */
export async function runBatches(batch: (offset: number) => Promise<BatchResult>, onProgress: (p: BatchProgress) => void, stopped: () => boolean = () => false): Promise<BatchProgress> {
  let p: BatchProgress = { batches: 0, processed: 0, duplicatesFound: 0, total: null, done: false };
  for (;;) {
    const r = await batch(p.processed);
    const processed = p.processed + r.processed;
    const finished = r.processed < BATCH_SIZE || r.remaining === 0 || r.nextOffset === null || p.batches + 1 >= MAX_BATCHES;
    p = {
      batches: p.batches + 1,
      processed,
      duplicatesFound: p.duplicatesFound + r.duplicatesFound,
      total: typeof r.remaining === 'number' ? processed + r.remaining : p.total,
      done: finished,
    };
    onProgress(p);
    if (finished || stopped()) return p;
  }
}
