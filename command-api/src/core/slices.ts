/** Work on the request thread between turns of the event loop, at most. */
const SLICE_MS = 15;

/** `fn` over consecutive chunks of `items`, a turn of the event loop between chunks. */
export async function chunksInSlices<T, R>(items: readonly T[], size: number, fn: (chunk: readonly T[]) => R): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) {
    out.push(fn(items.slice(i, i + size)));
    if (i + size < items.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/**
 * `items.map(fn)`, giving the event loop a turn whenever a slice of work took SLICE_MS: a
 * 200,000-row import's per-row steps (assignment, keys, ids) in one go held every other
 * request for most of a second. Same result as `map`, in order.
 */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let slice = performance.now();
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!, i);
    if ((i & 255) === 255 && performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return out;
}
