import type { Doc } from '@paperlink/domain';

/** Documents a chunk holds before it splits in two: an insert moves at most this many pointers. */
const CHUNK = 1024;

/**
 * One list's documents kept in its sort order (a sorted list of chunks). A write inserts or
 * removes a document in O(log n + CHUNK) instead of dropping the order, so a page of a
 * 400,000-document list after each projection commit is a walk to the page, not a pass over
 * every document (that pass took 30-60 ms of the request thread per request).
 */
export class SortedView {
  private chunks: Doc[][] = [];
  private count = 0;

  /** `sorted` must already be in `cmp` order; `cmp` is a total order (it ends with `_id`). */
  constructor(
    private readonly cmp: (a: Doc, b: Doc) => number,
    sorted: Doc[],
  ) {
    for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK));
    this.count = sorted.length;
  }

  get size(): number {
    return this.count;
  }

  /** A copy that later inserts and removes leave apart from this one (the chunks are copied, the documents shared). */
  copy(): SortedView {
    const out = new SortedView(this.cmp, []);
    out.chunks = this.chunks.map((c) => c.slice());
    out.count = this.count;
    return out;
  }

  /** The chunk a document belongs in: the first whose last document does not sort before it. */
  private chunkFor(doc: Doc): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      if (this.cmp(chunk[chunk.length - 1]!, doc) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private lowerBound(chunk: Doc[], doc: Doc): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cmp(chunk[mid]!, doc) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(doc: Doc): void {
    if (this.chunks.length === 0) {
      this.chunks.push([doc]);
      this.count = 1;
      return;
    }
    const ci = this.chunkFor(doc);
    const chunk = this.chunks[ci]!;
    chunk.splice(this.lowerBound(chunk, doc), 0, doc);
    this.count++;
    if (chunk.length > 2 * CHUNK) this.chunks.splice(ci, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
  }

  /** Removes this very document object (the one the store held); false if it was not here. */
  remove(doc: Doc): boolean {
    if (this.chunks.length === 0) return false;
    const ci = this.chunkFor(doc);
    const chunk = this.chunks[ci]!;
    const at = this.lowerBound(chunk, doc);
    if (chunk[at] === doc) {
      this.removeAt(ci, at);
      return true;
    }
    // A document changed in place after it was stored would sort elsewhere: find it by identity.
    for (let c = 0; c < this.chunks.length; c++) {
      const i = this.chunks[c]!.indexOf(doc);
      if (i >= 0) {
        this.removeAt(c, i);
        return true;
      }
    }
    return false;
  }

  private removeAt(ci: number, at: number): void {
    const chunk = this.chunks[ci]!;
    chunk.splice(at, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(ci, 1);
  }

  /** Documents [skip, end) in order, without touching the chunks before the page. */
  slice(skip: number, end = this.count): Doc[] {
    const out: Doc[] = [];
    let at = 0;
    for (const chunk of this.chunks) {
      if (at >= end) break;
      if (at + chunk.length > skip) {
        for (let i = Math.max(0, skip - at); i < chunk.length && at + i < end; i++) out.push(chunk[i]!);
      }
      at += chunk.length;
    }
    return out;
  }
}
