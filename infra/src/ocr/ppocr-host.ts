/**
 * PP-OCRv5 page readers (ppocr.ts) in worker threads of their own, `size` of them, each reading
 * one page at a time (a queue in front), started on first use: detection and recognition never
 * run on the thread that asks. A thread that dies fails its page and is started again for the
 * next. Idle threads do not keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import { ppocrFiles } from './ppocr';
import type { Contrast, PpocrReading } from './ppocr';

const ENTRY = new URL('./ppocr-entry.mjs', import.meta.url);

/** A page reader: one encoded page in, its words with boxes in the page's pixels out. */
export interface PageReader {
  read(image: Uint8Array, contrast?: Contrast): Promise<PpocrReading>;
  close(): Promise<void>;
}

export interface PpocrHostOptions {
  /** Reader threads (default 1). */
  size?: number;
  /** Where the models are (default infra/models/ppocrv5). */
  dir?: string;
  maxSide?: number;
}

interface Job {
  image: Uint8Array;
  contrast: Contrast;
  resolve: (r: PpocrReading) => void;
  reject: (e: Error) => void;
}

type Reply = { id: number; reading: PpocrReading } | { id: number; error: string };

/** The host, or null when the models are not installed (the product then reads with tesseract.js alone). */
export function createPpocrHost(options: PpocrHostOptions = {}): PageReader | null {
  if (!ppocrFiles(options.dir)) return null;
  const size = Math.max(1, options.size ?? 1);
  const threads: Array<{ worker: Worker; job?: Job } | undefined> = new Array(size).fill(undefined);
  const queue: Job[] = [];
  let closed = false;

  const start = (slot: number): { worker: Worker; job?: Job } => {
    const worker = new Worker(ENTRY, { execArgv: [], workerData: { dir: options.dir, maxSide: options.maxSide } });
    const thread: { worker: Worker; job?: Job } = { worker };
    const finish = (apply: (job: Job) => void): void => {
      const job = thread.job;
      thread.job = undefined;
      if (job) apply(job);
      pump();
    };
    worker.on('message', (reply: Reply) => finish((job) => ('error' in reply ? job.reject(new Error(reply.error)) : job.resolve(reply.reading))));
    const dead = (error: Error): void => {
      if (threads[slot] === thread) threads[slot] = undefined;
      finish((job) => job.reject(error));
    };
    worker.on('error', dead);
    worker.on('exit', (code) => dead(new Error(`PP-OCRv5 reader thread stopped (exit ${code})`)));
    threads[slot] = thread;
    return thread;
  };

  const pump = (): void => {
    for (let slot = 0; slot < size && queue.length > 0 && !closed; slot++) {
      const thread = threads[slot] ?? start(slot);
      if (thread.job) continue;
      const job = queue.shift()!;
      thread.job = job;
      thread.worker.ref();
      const copy = new Uint8Array(job.image);
      thread.worker.postMessage({ id: slot, image: copy, contrast: job.contrast }, [copy.buffer]);
    }
    for (const t of threads) if (t && !t.job) t.worker.unref();
  };

  return {
    read(image, contrast = 'auto') {
      if (closed) return Promise.reject(new Error('PP-OCRv5 reader closed'));
      return new Promise<PpocrReading>((resolve, reject) => {
        queue.push({ image, contrast, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('PP-OCRv5 reader closed'));
      await Promise.all(threads.map((t) => t?.worker.terminate()));
      threads.fill(undefined);
    },
  };
}
