/** The worker's end of a report's port: rows in, file bytes out, with flow control. */
import type { MessagePort } from 'node:worker_threads';
import { Writable } from 'node:stream';
import type { ReportRow } from '@paperlink/domain';
import type { ReportPass } from '@paperlink/domain';
import { CHUNK_BYTES, HIGH_WATER, type FromRenderer, type ToRenderer } from './protocol';

export class RendererChannel {
  private inFlight = 0;
  private waiters: Array<() => void> = [];
  private rowWaiter: { resolve: (m: { rows: ReportRow[]; done?: boolean }) => void; reject: (e: Error) => void } | null = null;
  private aborted: Error | null = null;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private files = new Map<number, { resolve: (b: Uint8Array | null) => void; reject: (e: Error) => void }>();
  private nextFile = 0;

  constructor(private readonly port: MessagePort) {
    port.on('message', (m: ToRenderer) => {
      if (m.t === 'ack') {
        this.inFlight -= m.bytes;
        if (this.inFlight < HIGH_WATER) for (const w of this.waiters.splice(0)) w();
      } else if (m.t === 'rows' || m.t === 'rowsByIds') {
        const w = this.rowWaiter;
        this.rowWaiter = null;
        w?.resolve(m);
      } else if (m.t === 'file') {
        const w = this.files.get(m.req);
        this.files.delete(m.req);
        if (m.error !== undefined) w?.reject(new Error(m.error));
        else w?.resolve(m.bytes);
      } else {
        this.aborted = new Error(`report stopped: ${m.reason}`);
        this.rowWaiter?.reject(this.aborted);
        this.rowWaiter = null;
        for (const w of this.files.values()) w.reject(this.aborted);
        this.files.clear();
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }

  private post(m: FromRenderer, transfer: ArrayBuffer[] = []): void {
    this.port.postMessage(m, transfer);
  }

  /** The rows of a pass, a page at a time (the next page is asked for while this one is used). */
  async *rows(pass: ReportPass): AsyncGenerator<ReportRow[]> {
    const ask = () =>
      new Promise<{ rows: ReportRow[]; done: boolean }>((resolve, reject) => {
        if (this.aborted) return reject(this.aborted);
        this.rowWaiter = { resolve: (m) => resolve({ rows: m.rows, done: m.done ?? true }), reject };
        this.post({ t: 'pull', pass });
      });
    let page = await ask();
    for (;;) {
      const next = page.done ? null : ask();
      // A page not taken yet would be an unhandled rejection if the report is aborted meanwhile.
      next?.catch(() => {});
      yield page.rows;
      if (!next) return;
      page = await next;
    }
  }

  /** Detail rows by id, in the order given (see ReportSource.byIds). */
  byIds(type: 'transaction' | 'receipt', ids: string[]): Promise<ReportRow[]> {
    return new Promise<{ rows: ReportRow[] }>((resolve, reject) => {
      if (this.aborted) return reject(this.aborted);
      this.rowWaiter = { resolve, reject };
      this.post({ t: 'pullIds', type, ids });
    }).then((m) => m.rows);
  }

  /** Why the report was stopped (the client went away, rows could not be read), if it was. */
  get stopped(): Error | null {
    return this.aborted;
  }

  /** A receipt's file, or a file derived from it, read by the request thread from the blob store (null: none). */
  file(sha256: string, derived?: string): Promise<Uint8Array | null> {
    return new Promise((resolve, reject) => {
      if (this.aborted) return reject(this.aborted);
      const req = this.nextFile++;
      this.files.set(req, { resolve, reject });
      this.post({ t: 'file', req, sha256, ...(derived === undefined ? {} : { derived }) });
    });
  }

  private flush(): void {
    if (this.bufferedBytes === 0) return;
    const bytes = new Uint8Array(this.bufferedBytes);
    let at = 0;
    for (const b of this.buffered) {
      bytes.set(b, at);
      at += b.length;
    }
    this.buffered = [];
    this.inFlight += this.bufferedBytes;
    this.bufferedBytes = 0;
    this.post({ t: 'chunk', bytes }, [bytes.buffer]);
  }

  /** Resolves once the response has caught up (output in flight below the high water mark). */
  drained(): Promise<void> {
    if (this.aborted) return Promise.reject(this.aborted);
    if (this.inFlight < HIGH_WATER) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push(() => (this.aborted ? reject(this.aborted) : resolve())));
  }

  /** A stream of the file's bytes: chunks are coalesced, and writes wait while the response is behind. */
  sink(): Writable {
    return new Writable({
      highWaterMark: CHUNK_BYTES,
      write: (chunk: Buffer, _enc, callback) => {
        if (this.aborted) return callback(this.aborted);
        this.buffered.push(chunk);
        this.bufferedBytes += chunk.length;
        if (this.bufferedBytes >= CHUNK_BYTES) this.flush();
        this.drained().then(() => callback(), callback);
      },
      final: (callback) => {
        this.flush();
        callback();
      },
    });
  }

  /** A print copy made here goes back (moved) to be kept; nothing waits for it. */
  printCopy(sha256: string, copy: Uint8Array): void {
    if (this.aborted) return;
    const own = copy.byteOffset === 0 && copy.byteLength === copy.buffer.byteLength ? copy : new Uint8Array(copy);
    this.post({ t: 'printCopy', sha256, copy: own }, [own.buffer as ArrayBuffer]);
  }

  end(): void {
    this.flush();
    this.post({ t: 'end' });
    this.port.close();
  }

  close(): void {
    this.port.close();
  }
}
