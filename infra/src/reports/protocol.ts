/**
 * Messages between the request thread (which reads rows from the read store and writes the
 * response) and the pool worker that renders a report, over a MessagePort of their own.
 * Flow control both ways: the worker asks for one page of rows at a time, and stops rendering
 * while more than HIGH_WATER bytes of output are unacknowledged (the response is slower).
 */
import type { ReportPass, ReportRow } from '@paperlink/domain';

export type FromRenderer =
  | { t: 'pull'; pass: ReportPass }
  /** Detail rows by id, in this order (the renderer ordered them: ReportSource.byIds). */
  | { t: 'pullIds'; type: 'transaction' | 'receipt'; ids: string[] }
  | { t: 'chunk'; bytes: Uint8Array }
  /** A receipt's print copy made during the render, to be kept under its file's key. */
  | { t: 'printCopy'; sha256: string; copy: Uint8Array }
  /** A receipt's file (or its derived file `derived`) for a worker that reads its rows itself (OwnRows). */
  | { t: 'file'; req: number; sha256: string; derived?: string }
  | { t: 'end' };

export type ToRenderer =
  | { t: 'rows'; pass: ReportPass; rows: ReportRow[]; done: boolean }
  | { t: 'rowsByIds'; rows: ReportRow[] }
  | { t: 'ack'; bytes: number }
  | { t: 'file'; req: number; bytes: Uint8Array | null; error?: string }
  | { t: 'abort'; reason: string };

/** Output bytes in flight (posted, not yet written to the response) before the worker waits. */
export const HIGH_WATER = 4 * 1024 * 1024;
/** Output is posted in chunks of about this size (pdfkit writes many small pieces). */
export const CHUNK_BYTES = 256 * 1024;
