import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** The project's shared data sets (receipts-train, receipts-dev, bank-csv), beside the checkout. */
export const SHARED_DATA = join(ROOT, '..', 'shared', 'data');
/** Cached OCR readings, kept where the benches keep theirs (git-ignored). */
export const BENCH_CACHE = join(ROOT, 'bench', '.cache');
