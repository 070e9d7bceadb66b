/**
 * A small pool of worker threads for CPU-heavy steps (CSV parsing, PDF checks and rendering,
 * thumbnails), so that one company's large file never holds the request thread.
 *
 * - Workers start on first use, up to `size`. Tasks wait in a queue per owner (the company a
 *   request or job acts for, owner.ts), and free workers serve the owners in turn; an owner runs
 *   at most `perOwner` tasks at once (all but one worker by default), so a worker is always left
 *   for another company however much one company sends.
 * - A task that runs longer than its time limit, or whose worker dies (out of memory), has its
 *   worker terminated and replaced; the caller gets a typed error, never a hung request.
 * - Errors thrown in a worker come back as the same AppError (status, code, message, details).
 * - Large arrays in a result (a statement's rows) come back in parts, so the request thread
 *   deserialises them a slice at a time and keeps answering in between.
 *
 * The worker's entry is a plain .mjs file that registers tsx in the thread, so the pool works
 * the same under `node --import tsx`, the tsx CLI and vitest.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '@paperlink/domain';
import type { TaskInput, TaskName, TaskOutput } from './tasks';
import type { FromWorker, SerializedError, ToWorker } from './protocol';
import { PART_ITEMS } from './protocol';
import { currentOwner, SYSTEM_OWNER } from './owner';

export interface WorkerPoolOptions {
  /** Worker threads at most. */
  size: number;
  /** A task running longer than this is stopped (its worker is replaced). Default 60 s. */
  taskTimeoutMs?: number;
  /** Heap of each worker in MB; a task that needs more fails instead of growing the process. */
  maxHeapMb?: number;
  /**
   * A worker idle this long is stopped (a new one starts on demand). A worker keeps the heap its
   * biggest task grew, idle or not: after three PDF receipts two workers held 800 MB more
   * through a 100,000-row import (ADR 0029). Default 60 s.
   */
  idleMs?: number;
  /** The same for a worker that reads PDFs (pdfjs loaded: about 150 MB a worker). Default 5 s. */
  pdfIdleMs?: number;
  /** Tasks one owner (a company) may run at once. Default `size - 1` (at least 1). */
  perOwner?: number;
}

interface Pending {
  id: number;
  owner: string;
  task: TaskName;
  input: unknown;
  transfer: ArrayBuffer[];
  /** Large array fields of the input, sent in slices ahead of the task. */
  inputParts: Record<string, unknown[]>;
  timeoutMs: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  current?: Pending & { parts: Map<string, unknown[]>; timer?: NodeJS.Timeout };
  /** While idle: when it is stopped. */
  idleTimer?: NodeJS.Timeout;
  /**
   * Started with pdfjs loaded ahead of tsx (entry.mjs): the only kind that runs the tasks that
   * read PDFs. It runs the other tasks too when no other worker is free.
   */
  pdfjs: boolean;
}

const ENTRY = new URL('./entry.mjs', import.meta.url);
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_MS = 60_000;
const DEFAULT_PDF_IDLE_MS = 5_000;
/** Tasks that load pdfjs into their worker (a thumbnail when its file is a PDF, a PDF report's receipt pages). */
const PDF_TASKS: ReadonlySet<TaskName> = new Set<TaskName>(['checkPdf', 'pdfText', 'renderPdf', 'pdfjsProbe']);
export const loadsPdfjs = (task: TaskName, input: unknown): boolean =>
  PDF_TASKS.has(task)
  || (task === 'thumbnail' && (input as { kind?: string } | null)?.kind === 'pdf')
  || (task === 'report' && (input as { meta?: { format?: string } } | null)?.meta?.format === 'pdf');

/** Tasks that read a file someone sent: past the limit the file is what is too much. */
const FILE_TASKS: ReadonlySet<TaskName> = new Set<TaskName>(['statement', 'masterData', 'checkPdf', 'pdfText', 'renderPdf', 'thumbnail', 'printCopy', 'receiptFields', 'receiptRereadLines', 'paddleLines', 'calendar']);

/**
 * A task stopped at its time limit: 422 `file_too_complex` for a file someone sent, 503
 * `analysis_too_long` for work over the company's own records (nothing to change in a request).
 */
export class TaskTimeoutError extends AppError {
  constructor(seconds: number, task?: TaskName) {
    if (task === undefined || FILE_TASKS.has(task)) super(422, 'file_too_complex', `This file took longer than ${seconds} s to read, so it was stopped. Send a simpler or smaller file.`);
    else super(503, 'analysis_too_long', `This analysis took longer than ${seconds} s, so it was stopped. Try again later, or narrow it down.`);
  }
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly idle: Slot[] = [];
  /** Waiting tasks by owner, in the order owners are served (an owner goes to the back when served). */
  private readonly queues = new Map<string, Pending[]>();
  /** Tasks running now, by owner. */
  private readonly running = new Map<string, number>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!(options.size >= 1)) throw new Error('a worker pool needs at least one worker');
  }

  get size(): number {
    return this.options.size;
  }

  /** Tasks waiting for a worker (not counting the running ones). */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Tasks one owner may run at once (work of no request or job, the product's own, is not capped). */
  private capOf(owner: string): number {
    return owner === SYSTEM_OWNER ? Infinity : this.options.perOwner ?? Math.max(1, this.options.size - 1);
  }

  /** Workers running now (busy or idle). */
  get workers(): number {
    return this.slots.length;
  }

  /**
   * Runs a task in a worker. `transfer` moves buffers instead of copying them (the caller
   * must not use them afterwards).
   */
  run<K extends TaskName>(task: K, input: TaskInput<K>, options: { transfer?: ArrayBuffer[]; timeoutMs?: number } = {}): Promise<TaskOutput<K>> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    // Long arrays of the input travel in slices, serialised one turn of the event loop at a time.
    const parts: Record<string, unknown[]> = {};
    let rest: unknown = input;
    if (input && typeof input === 'object' && !ArrayBuffer.isView(input)) {
      const copy: Record<string, unknown> = { ...(input as Record<string, unknown>) };
      for (const [field, value] of Object.entries(copy)) {
        if (Array.isArray(value) && value.length > PART_ITEMS) {
          parts[field] = value;
          delete copy[field];
        }
      }
      rest = copy;
    }
    const owner = currentOwner();
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      let queue = this.queues.get(owner);
      if (!queue) this.queues.set(owner, (queue = []));
      queue.push({
        id: this.nextId++,
        owner,
        task,
        input: rest,
        inputParts: parts,
        transfer: options.transfer ?? [],
        timeoutMs: options.timeoutMs ?? this.options.taskTimeoutMs ?? DEFAULT_TIMEOUT_MS,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queues.values()) for (const p of q.splice(0)) p.reject(new Error('the worker pool is closed'));
    this.queues.clear();
    await Promise.all(this.slots.splice(0).map(async (slot) => {
      clearTimeout(slot.idleTimer);
      if (slot.current) {
        clearTimeout(slot.current.timer);
        this.finished(slot.current);
        slot.current.reject(new Error('the worker pool is closed'));
        slot.current = undefined;
      }
      await slot.worker.terminate();
    }));
    this.idle.length = 0;
  }

  /**
   * The next owner in turn with a task waiting and room under `perOwner` gives its oldest task a
   * free worker of its kind: one that reads a PDF takes a worker started with pdfjs, or starts
   * one (in place of an idle plain worker when the pool is full); any other task takes a plain
   * worker first, a pdfjs one if that is all that is free. (Whenever any worker is free or can
   * start, every task can have one, so the turn never skips an owner for lack of its kind.)
   */
  private dispatch(): void {
    for (;;) {
      const owner = this.nextOwner();
      if (owner === undefined) return;
      const queue = this.queues.get(owner)!;
      const next = queue[0]!;
      const pdf = loadsPdfjs(next.task, next.input);
      let slot = this.takeIdle((s) => s.pdfjs === pdf) ?? (pdf ? undefined : this.takeIdle(() => true));
      if (!slot && this.slots.length >= this.options.size && pdf) {
        const plain = this.takeIdle((s) => !s.pdfjs);
        if (plain) this.drop(plain);
      }
      if (!slot && this.slots.length < this.options.size) slot = this.spawn(pdf);
      if (!slot) return;
      clearTimeout(slot.idleTimer);
      queue.shift();
      // Served: to the back of the turn (or out of it, with nothing left to wait).
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue);
      this.running.set(owner, (this.running.get(owner) ?? 0) + 1);
      this.start(slot, next);
    }
  }

  /** The first owner in turn with a waiting task and room to run it. */
  private nextOwner(): string | undefined {
    for (const [owner, queue] of this.queues) {
      if (queue.length > 0 && (this.running.get(owner) ?? 0) < this.capOf(owner)) return owner;
    }
    return undefined;
  }

  /** A task has ended (done, failed, stopped or its worker lost): its owner's count goes down. */
  private finished(task: Pending): void {
    const n = (this.running.get(task.owner) ?? 1) - 1;
    if (n > 0) this.running.set(task.owner, n);
    else this.running.delete(task.owner);
  }

  /** The most recently idle worker that `fits`, taken off the idle list. */
  private takeIdle(fits: (slot: Slot) => boolean): Slot | undefined {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      if (fits(this.idle[i]!)) return this.idle.splice(i, 1)[0];
    }
    return undefined;
  }

  private spawn(pdfjs: boolean): Slot {
    const worker = new Worker(ENTRY, {
      // The entry registers tsx itself; inherited loader flags would register it twice.
      execArgv: [],
      workerData: { pdfjs },
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb ?? 1536 },
    });
    worker.unref();
    const slot: Slot = { worker, pdfjs };
    this.slots.push(slot);
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (error) => this.onExit(slot, error));
    worker.on('exit', (code) => this.onExit(slot, new Error(`worker stopped (exit code ${code})`)));
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    const current = { ...pending, parts: new Map<string, unknown[]>() } as NonNullable<Slot['current']>;
    slot.current = current;
    current.timer = setTimeout(() => {
      if (slot.current !== current) return;
      slot.current = undefined;
      this.finished(current);
      current.reject(new TaskTimeoutError(Math.round(current.timeoutMs / 1000), current.task));
      this.retire(slot);
    }, current.timeoutMs);
    void this.send(slot, current);
  }

  private async send(slot: Slot, current: NonNullable<Slot['current']>): Promise<void> {
    for (const [field, items] of Object.entries(current.inputParts)) {
      for (let i = 0; i < items.length; i += PART_ITEMS) {
        if (slot.current !== current) return;
        const part: ToWorker = { kind: 'part', id: current.id, field, items: items.slice(i, i + PART_ITEMS) };
        slot.worker.postMessage(part);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (slot.current !== current) return;
    const message: ToWorker = { kind: 'task', id: current.id, task: current.task, input: current.input };
    slot.worker.postMessage(message, current.transfer);
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    const current = slot.current;
    if (!current || current.id !== message.id) return;
    if (message.kind === 'part') {
      const list = current.parts.get(message.field);
      if (list) for (const item of message.items) list.push(item);
      else current.parts.set(message.field, message.items);
      return;
    }
    clearTimeout(current.timer);
    slot.current = undefined;
    this.finished(current);
    if (message.kind === 'done') {
      const value = message.value as Record<string, unknown>;
      for (const [field, items] of current.parts) value[field] = items;
      current.resolve(value);
    } else {
      current.reject(reviveError(message.error));
    }
    if (this.closed) return;
    this.idle.push(slot);
    const idleMs = this.options.idleMs ?? DEFAULT_IDLE_MS;
    slot.idleTimer = setTimeout(() => this.stopIdle(slot), slot.pdfjs ? Math.min(idleMs, this.options.pdfIdleMs ?? DEFAULT_PDF_IDLE_MS) : idleMs);
    slot.idleTimer.unref();
    this.dispatch();
  }

  /** An idle worker's time is up: stopped, and its heap with it. */
  private stopIdle(slot: Slot): void {
    const i = this.idle.indexOf(slot);
    if (i < 0 || slot.current) return;
    this.idle.splice(i, 1);
    this.drop(slot);
  }

  /** A worker off the idle list, stopped and no longer counted. */
  private drop(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    void slot.worker.terminate();
  }

  /** A worker that died or was stopped: its task fails, a new worker takes its place on demand. */
  private onExit(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
    const current = slot.current;
    slot.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      this.finished(current);
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      current.reject(outOfMemory
        ? new AppError(413, 'file_too_large', 'This file needs more memory to read than a single file may use. Split it into smaller files.')
        : error);
    }
    if (!this.closed) this.dispatch();
  }

  private retire(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    void slot.worker.terminate();
    this.dispatch();
  }
}

function reviveError(e: SerializedError): Error {
  if (e.status !== undefined && e.code !== undefined) {
    const error = new AppError(e.status, e.code, e.message, e.details);
    error.name = e.name;
    return error;
  }
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}
