/** Messages between the pool and its worker threads. */
export type ToWorker =
  /** A slice of a large array field of the input, sent ahead of the task. */
  | { kind: 'part'; id: number; field: string; items: unknown[] }
  | { kind: 'task'; id: number; task: string; input: unknown };

export interface SerializedError {
  name: string;
  message: string;
  status?: number;
  code?: string;
  details?: unknown;
}

export type FromWorker =
  /** A slice of a large array field of the result, sent ahead of the rest. */
  | { kind: 'part'; id: number; field: string; items: unknown[] }
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: SerializedError };

/** Arrays longer than this travel in parts of this many items. */
export const PART_ITEMS = 4000;
