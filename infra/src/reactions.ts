/**
 * The features' reactions (events that call for jobs), kept light: the projector thread runs
 * them (infra/src/projector/thread.ts) without loading the features' HTTP code. Each feature
 * module names its own; test/architecture/modules.int.spec.ts checks the two lists agree.
 */
import type { Reaction } from './boot/feature';
import { ocrJobsFrom } from './receipts/ocr-job';
import { autoMatchJobsFrom } from './matches/matching-job';

export const reactions = {
  /** Receipts to read by OCR. */
  receiptsOcr: { name: 'receipts-ocr', jobsFrom: ocrJobsFrom },
  /** New evidence (a receipt read, transactions imported) to auto-match. */
  autoMatch: { name: 'auto-match', jobsFrom: autoMatchJobsFrom },
} satisfies Record<string, Reaction>;

export const allReactions: Reaction[] = Object.values(reactions);
