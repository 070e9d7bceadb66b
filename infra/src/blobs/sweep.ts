import type { ReadStore } from '@paperlink/domain';
import { UPLOAD_URL_TTL_SECONDS } from '@paperlink/command-api';
import { referencedReceiptFiles } from '@paperlink/projections';
import type { LocalBlobStore, SweepReport } from './local';

/**
 * How old a file with no receipt must be before it is removed: an hour, and always longer than
 * a direct upload may wait for its commit (the upload URL's lifetime, then as long again).
 */
export const ORPHAN_SAFETY_MS = Math.max(60 * 60 * 1000, 2 * UPLOAD_URL_TTL_SECONDS * 1000 + 10 * 60 * 1000);

/**
 * On start: once the read models hold every receipt of the log, removes the receipt files no
 * receipt ever referred to (left by a crash between storing the bytes and recording the receipt,
 * or an upload never committed) and older than the safety age. The file of a deleted receipt
 * stays: it belongs to the history auditors replay. Skipped when the read models cannot
 * catch up (a failed projection must never make files look unreferenced).
 */
export async function sweepOrphanFiles(
  blobs: LocalBlobStore,
  readStore: ReadStore,
  caughtUp: () => Promise<boolean>,
  log: (message: string) => void = console.warn,
): Promise<SweepReport | null> {
  if (!(await caughtUp())) {
    log('orphan file sweep skipped: the read models did not catch up with the log');
    return null;
  }
  const report = await blobs.sweepOrphans((keys) => referencedReceiptFiles(readStore, keys), ORPHAN_SAFETY_MS);
  if (report.removed.length > 0 || report.removedTemporary > 0) {
    log(`orphan file sweep: removed ${report.removed.length} receipt file(s) no receipt refers to and ${report.removedTemporary} temporary file(s), of ${report.scanned}`);
  }
  return report;
}
