/**
 * A string-keyed map that, once large, keeps its entries in SHARDS sub-maps chosen by a cheap
 * hash of the key, so a growth of the hash table rehashes a sixteenth of the entries instead of
 * all of them at once (a company passing 262,144 transactions held the event loop ~0.5 s while
 * the store's document map, its index buckets and `transaction_keys` all doubled in one commit).
 *
 * Behaves like a Map: iteration is in insertion order (setting an existing key keeps its
 * place; deleting and setting again moves it to the end), which paging in natural order
 * relies on. Small maps stay one plain Map; the split happens once, at SPLIT_AT entries.
 */
const SHARDS = 16;
const SPLIT_AT = 16_384;

interface Entry<V> {
  value: V;
  /** Insertion sequence: the merge key of iteration. */
  seq: number;
}

function shardOf(key: string): number {
  // FNV-1a over the last (most varying) characters of the key.
  let h = 0x811c9dc5;
  for (let i = Math.max(0, key.length - 12); i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

export class ShardedMap<V> implements Iterable<[string, V]> {
  private small: Map<string, V> | null = new Map();
  private shards: Array<Map<string, Entry<V>>> = [];
  private seq = 0;
  private count = 0;

  constructor(private readonly splitAt = SPLIT_AT) {}

  get size(): number {
    return this.small ? this.small.size : this.count;
  }

  get(key: string): V | undefined {
    if (this.small) return this.small.get(key);
    return this.shards[shardOf(key)]!.get(key)?.value;
  }

  has(key: string): boolean {
    if (this.small) return this.small.has(key);
    return this.shards[shardOf(key)]!.has(key);
  }

  set(key: string, value: V): this {
    if (this.small) {
      this.small.set(key, value);
      if (this.small.size >= this.splitAt) this.split();
      return this;
    }
    const shard = this.shards[shardOf(key)]!;
    const entry = shard.get(key);
    if (entry) entry.value = value;
    else {
      shard.set(key, { value, seq: this.seq++ });
      this.count++;
    }
    return this;
  }

  delete(key: string): boolean {
    if (this.small) return this.small.delete(key);
    const deleted = this.shards[shardOf(key)]!.delete(key);
    if (deleted) this.count--;
    return deleted;
  }

  clear(): void {
    this.small = new Map();
    this.shards = [];
    this.count = 0;
  }

  private split(): void {
    const small = this.small!;
    this.shards = Array.from({ length: SHARDS }, () => new Map<string, Entry<V>>());
    for (const [key, value] of small) this.shards[shardOf(key)]!.set(key, { value, seq: this.seq++ });
    this.count = small.size;
    this.small = null;
  }

  *entries(): IterableIterator<[string, V]> {
    if (this.small) {
      yield* this.small.entries();
      return;
    }
    // Each shard is in insertion order; merge them by sequence. The iterators are live, like a
    // Map's: entries set during iteration come later (higher seq) and are reached.
    const its = this.shards.map((s) => s.entries());
    const heads = its.map((it) => it.next());
    for (;;) {
      let best = -1;
      let bestSeq = Infinity;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!;
        if (!h.done && h.value[1].seq < bestSeq) {
          bestSeq = h.value[1].seq;
          best = i;
        }
      }
      if (best < 0) return;
      const [key, entry] = heads[best]!.value as [string, Entry<V>];
      heads[best] = its[best]!.next();
      yield [key, entry.value];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<V> {
    if (this.small) {
      yield* this.small.values();
      return;
    }
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
