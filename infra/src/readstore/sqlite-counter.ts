import { Worker } from 'node:worker_threads';

interface Waiting {
  resolve: (n: number) => void;
  reject: (e: Error) => void;
}

/**
 * The counting thread of the SQLite read store (sqlite-count.mjs): counts on a read connection
 * of its own, so a count that reads every row of a big collection never holds the request
 * thread. Started on the first count; a thread that failed is replaced on the next one.
 */
export class CountingThread {
  private current?: { worker: Worker; next: number; waiting: Map<number, Waiting> };

  constructor(private readonly file: string) {}

  /** The statement's one value (a count, or a count and a sequence number as JSON). */
  count(sql: string, params: unknown[]): Promise<number> {
    const counter = (this.current ??= this.start());
    const id = counter.next++;
    return new Promise<number>((resolve, reject) => {
      counter.waiting.set(id, { resolve, reject });
      counter.worker.postMessage({ id, sql, params });
    });
  }

  close(): void {
    void this.current?.worker.terminate();
    this.current = undefined;
  }

  private start(): NonNullable<CountingThread['current']> {
    const worker = new Worker(new URL('./sqlite-count.mjs', import.meta.url), { workerData: { file: this.file }, execArgv: [] });
    worker.unref();
    const counter = { worker, next: 0, waiting: new Map<number, Waiting>() };
    worker.on('message', (m: { id: number; n?: number; error?: string }) => {
      const w = counter.waiting.get(m.id);
      counter.waiting.delete(m.id);
      if (m.error !== undefined || m.n === undefined) w?.reject(new Error(m.error ?? 'no count'));
      else w?.resolve(m.n);
    });
    worker.on('error', (error) => {
      for (const w of counter.waiting.values()) w.reject(error);
      counter.waiting.clear();
      if (this.current === counter) this.current = undefined;
    });
    return counter;
  }
}
