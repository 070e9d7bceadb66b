import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import type { CounterStore, HitOutcome, LimitRule } from '@paperlink/domain';
import { asHit, once, retryAfterSeconds, SWEEP_EVERY_MS, type StoredHit } from './window';
import { randomUUID } from 'node:crypto';

/** One allowed hit: ticket `n` of key `k`, its `_id` being `k#n`. */
interface Ticket extends StoredHit {
  _id: string;
  k: string;
  n: number;
  released?: boolean;
  /** When the sweep (or a TTL index) may remove the ticket: a day after it left its window. */
  sweepAfter: Date;
}

/** Rounds of a hit that meets other processes' hits on the same key before it fails closed. */
const MAX_ROUNDS = 20;
/** How long a key's newest ticket is kept after it left its window (see the class comment). */
const IDLE_KEEP_MS = 24 * 3600 * 1000;
const DUPLICATE_KEY = 11000;
const NOT_IMPLEMENTED = 238;

/**
 * The limit store of the distributed profile, in `_limits` beside the read models. Each allowed
 * hit inserts the key's next ticket (`<key>#<n>`); a hit reads the key's tickets, decides, and
 * inserts ticket max+1, so two hits that decided on the same tickets race for one `_id` and one
 * of them decides again. The unique `_id` is the only atomic step it relies on: FerretDB v1
 * (which has no transactions) updates a document by reading it and writing it back, so
 * concurrent `$push`, `$inc` or conditional `findOneAndUpdate` on one document lose writes (30
 * parallel `$inc` left 1 on v1.24.2), while a duplicate `_id` is refused by SQLite's unique index.
 *
 * A ticket given back is marked `released` (never deleted: a gap in the numbers would let a hit
 * decide without a ticket another one just took). Tickets that left the window are deleted by
 * the next allowed hit of the key (only below its own ticket); a key's last tickets a day after
 * they left the window, by a TTL index or, on FerretDB (no TTL indexes), by the sweep. Only a
 * hit at that very moment on a key idle for a day can decide on an empty key beside one that
 * read it just before: both then count from nothing.
 */
export class MongoCounterStore implements CounterStore {
  readonly kind = 'mongodb';
  private lastSweep = 0;

  private constructor(
    private readonly client: MongoClient,
    private readonly tickets: Collection<Ticket>,
  ) {}

  /** A client of its own (closed with the store), on the read models' database. */
  static async connect(url: string, dbName: string, options: { collection?: string } = {}): Promise<MongoCounterStore> {
    const client = new MongoClient(url);
    await client.connect();
    try {
      const tickets = client.db(dbName).collection<Ticket>(options.collection ?? '_limits');
      await tickets.createIndex({ k: 1, n: 1 });
      try {
        await tickets.createIndex({ sweepAfter: 1 }, { expireAfterSeconds: 0 });
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === NOT_IMPLEMENTED)) throw error;
        await tickets.createIndex({ sweepAfter: 1 });
      }
      return new MongoCounterStore(client, tickets);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  async hit(key: string, rule: LimitRule, options: { tag?: string; now?: number } = {}): Promise<HitOutcome> {
    const now = options.now ?? Date.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      this.sweep(now).catch((error: unknown) => console.error('limits: sweep of _limits failed:', error));
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const held = await this.tickets.find({ k: key }).sort({ n: 1 }).toArray();
      const live = held.filter((t) => t.at > now - rule.windowMs && !t.released);
      const earlier = live.map(asHit);
      if (live.length >= rule.limit) return { allowed: false, retryAfterSeconds: retryAfterSeconds(live, rule, now), earlier };
      const n = held.length === 0 ? 0 : held[held.length - 1]!.n + 1;
      const _id = `${key}#${n}`;
      const ticket: Ticket = { _id, k: key, n, at: now, id: randomUUID(), sweepAfter: new Date(now + rule.windowMs + IDLE_KEEP_MS), ...(options.tag === undefined ? {} : { tag: options.tag }) };
      if (!(await this.insert(ticket))) continue;
      const gone = held.filter((t) => t.at <= now - rule.windowMs).map((t) => t._id);
      if (gone.length > 0) await this.tickets.deleteMany({ _id: { $in: gone } });
      const release = once(async () => {
        await this.tickets.updateOne({ _id }, { $set: { released: true } });
      });
      return { allowed: true, remaining: rule.limit - live.length - 1, earlier, release };
    }
    // Fails closed: more hits on this key at once than MAX_ROUNDS rounds decide.
    return { allowed: false, retryAfterSeconds: 1, earlier: [] };
  }

  /** Whether the ticket was inserted (false: another hit took its number first). */
  private async insert(ticket: Ticket): Promise<boolean> {
    try {
      await this.tickets.insertOne(ticket);
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  /** Removes the tickets of keys idle for a day past their window; how many. */
  async sweep(now = Date.now()): Promise<number> {
    return (await this.tickets.deleteMany({ sweepAfter: { $lte: new Date(now) } })).deletedCount;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
