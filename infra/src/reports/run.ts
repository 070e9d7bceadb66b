/**
 * The request thread's side of a report: starts the render task in the worker pool, answers its
 * requests for rows from a ReportSource (a page of the read store each), and writes the bytes it
 * sends to the response, acknowledging them as the response takes them (so a slow client slows
 * the rendering instead of filling memory). A client that goes away stops the worker.
 */
import { MessageChannel } from 'node:worker_threads';
import type { Writable } from 'node:stream';
import type { BlobStore, ReportMeta, ReportRow, ReportSource } from '@paperlink/domain';
import type { WorkerPool } from '../workers/pool';
import type { FromRenderer, ToRenderer } from './protocol';
import type { OwnRows } from './worker-rows';

/** A report may take this long before it is stopped. */
export const REPORT_TIMEOUT_MS = 10 * 60_000;

/** Receipt bytes travel moved, not copied. */
function transfers(rows: ReportRow[]): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const r of rows) {
    if (r.type === 'match') continue;
    for (const a of r.attachments) {
      for (const b of [a.bytes, a.print]) if (b && b.buffer instanceof ArrayBuffer && !out.includes(b.buffer)) out.push(b.buffer);
    }
  }
  return out;
}

/**
 * With `job.ownRows` (the SQLite read store) the worker reads the rows itself (worker-rows.ts):
 * `source` then only keeps print copies, and `blobs` answers the worker's reads of receipt files.
 */
export function renderReport(pool: WorkerPool, job: { meta: ReportMeta; admin: boolean; ownRows?: OwnRows }, source: ReportSource, out: Writable, blobs?: BlobStore): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  const send = (m: ToRenderer, transfer: ArrayBuffer[] = []) => port1.postMessage(m, transfer);
  let failed: Error | null = null;
  const ended = new Promise<void>((resolve, reject) => {
    port1.on('message', (m: FromRenderer) => {
      if (m.t === 'pull') {
        source.next(m.pass).then(
          (page) => send({ t: 'rows', pass: m.pass, rows: page.rows, done: page.done }, transfers(page.rows)),
          (error: unknown) => {
            failed = error instanceof Error ? error : new Error(String(error));
            send({ t: 'abort', reason: 'the rows could not be read' });
            reject(failed);
          },
        );
      } else if (m.t === 'pullIds') {
        source.byIds!(m.type, m.ids).then(
          (rows) => send({ t: 'rowsByIds', rows }, transfers(rows)),
          (error: unknown) => {
            failed = error instanceof Error ? error : new Error(String(error));
            send({ t: 'abort', reason: 'the rows could not be read' });
            reject(failed);
          },
        );
      } else if (m.t === 'file') {
        const read = blobs ? (m.derived === undefined ? blobs.get(m.sha256) : blobs.getDerived(m.sha256, m.derived)) : Promise.reject(new Error('no blob store'));
        read.then(
          (b) => {
            // Bytes of their own (a Buffer may be a slice of a shared pool), moved to the worker.
            const bytes = !b ? null : b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer) : new Uint8Array(b);
            send({ t: 'file', req: m.req, bytes }, bytes ? [bytes.buffer as ArrayBuffer] : []);
          },
          (error: unknown) => send({ t: 'file', req: m.req, bytes: null, error: error instanceof Error ? error.message : String(error) }),
        );
      } else if (m.t === 'printCopy') {
        source.keepPrintCopy?.(m.sha256, m.copy);
      } else if (m.t === 'chunk') {
        const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
        const ack = () => send({ t: 'ack', bytes: bytes.length });
        if (out.destroyed) return;
        if (out.write(bytes)) ack();
        else out.once('drain', ack);
      } else {
        resolve();
      }
    });
  });
  const onClose = () => {
    if (!out.writableFinished) send({ t: 'abort', reason: 'the client went away' });
  };
  out.once('close', onClose);
  const input = { port: port2, meta: job.meta, admin: job.admin, ...(job.ownRows ? { ownRows: job.ownRows } : { ordersRows: !!source.byIds }) };
  const task = pool.run('report', input, { transfer: [port2 as unknown as ArrayBuffer], timeoutMs: REPORT_TIMEOUT_MS });
  return Promise.all([task, ended]).then(
    () => undefined,
    (error: unknown) => {
      throw failed ?? error;
    },
  ).finally(() => {
    out.off('close', onClose);
    port1.close();
  });
}
