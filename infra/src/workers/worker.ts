/** The loop of a pool worker: one task at a time, results and errors posted back. */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { FromWorker, SerializedError, ToWorker } from './protocol';
import { PART_ITEMS } from './protocol';
import { TASKS } from './tasks';

const port = parentPort;
if (!port) throw new Error('worker.ts runs in a worker thread');
// Lower priority (nice 10, this thread only on Linux): the request thread is served first.
try {
  setPriority(10);
} catch {
  // not permitted or not supported: normal priority
}

const inputParts = new Map<number, Map<string, unknown[]>>();

port.on('message', (message: ToWorker) => {
  if (message.kind === 'part') {
    let fields = inputParts.get(message.id);
    if (!fields) inputParts.set(message.id, (fields = new Map()));
    const list = fields.get(message.field);
    if (list) for (const item of message.items) list.push(item);
    else fields.set(message.field, message.items);
    return;
  }
  const parts = inputParts.get(message.id);
  inputParts.delete(message.id);
  if (parts) for (const [field, items] of parts) (message.input as Record<string, unknown>)[field] = items;
  void run(message);
});

async function run({ id, task, input }: { id: number; task: string; input: unknown }): Promise<void> {
  try {
    const fn = (TASKS as Record<string, ((input: never) => unknown) | undefined>)[task];
    if (!fn) throw new Error(`no such task: ${task}`);
    const value = await fn(input as never);
    const transfer: ArrayBuffer[] = [];
    if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      for (const [field, items] of Object.entries(value)) {
        if (!Array.isArray(items) || items.length <= PART_ITEMS) continue;
        for (let i = 0; i < items.length; i += PART_ITEMS) {
          post({ kind: 'part', id, field, items: items.slice(i, i + PART_ITEMS) });
        }
        delete (value as Record<string, unknown>)[field];
      }
    }
    collectTransfers(value, transfer);
    post({ kind: 'done', id, value }, transfer);
  } catch (error) {
    post({ kind: 'failed', id, error: serialize(error) });
  }
}

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

/** Buffers at the top of a result (rendered pages, a thumbnail) move instead of being copied. */
function collectTransfers(value: unknown, out: ArrayBuffer[]): void {
  const add = (v: unknown) => {
    if (v instanceof Uint8Array && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && v.buffer instanceof ArrayBuffer && !out.includes(v.buffer)) out.push(v.buffer);
  };
  add(value);
  if (Array.isArray(value)) value.forEach(add);
}

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) {
    const e = error as Error & { status?: unknown; code?: unknown; details?: unknown };
    return {
      name: e.name,
      message: e.message,
      ...(typeof e.status === 'number' && typeof e.code === 'string' ? { status: e.status, code: e.code, details: structuredSafe(e.details) } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

function structuredSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return undefined;
  }
}
