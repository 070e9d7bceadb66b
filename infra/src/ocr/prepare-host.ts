/**
 * Runs the OCR image preparation (preprocess.ts prepareSteps) in a worker thread of its own,
 * started on first use, so that none of its work (decoding, scaling, the PGM copy) runs on the
 * request thread. Requests are served one after the other in the thread;
 * sharp inside it uses libvips' own threads.
 */
import { Worker } from 'node:worker_threads';
import type { Prepared, PrepSteps } from './preprocess';

const ENTRY = new URL('./prepare-entry.mjs', import.meta.url);

export interface PrepareHost {
  prepare(image: Uint8Array, steps: PrepSteps): Promise<Prepared>;
  close(): Promise<void>;
}

type Reply = { id: number; prepared: Omit<Prepared, 'image'> & { image: Uint8Array } } | { id: number; error: string };

export function createPrepareHost(): PrepareHost {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (p: Prepared) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error): void => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = new Worker(ENTRY, { execArgv: [] });
    w.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) w.unref();
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve({ ...reply.prepared, image: Buffer.from(reply.prepared.image.buffer, reply.prepared.image.byteOffset, reply.prepared.image.byteLength) });
    });
    w.on('error', (error) => {
      if (worker === w) worker = undefined;
      failAll(error);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`OCR preparation thread stopped (exit ${code})`));
    });
    worker = w;
    return w;
  };
  return {
    prepare(image, steps) {
      const w = ensure();
      const id = nextId++;
      const copy = new Uint8Array(image);
      return new Promise<Prepared>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // Referenced while it has work, so a script waiting on it does not exit; idle, it
        // must not keep the process alive.
        w.ref();
        w.postMessage({ id, image: copy, steps }, [copy.buffer]);
      });
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
