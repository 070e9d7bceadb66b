import { randomUUID } from 'node:crypto';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import type { CounterStore, HitOutcome, LimitRule } from '@paperlink/domain';
import { asHit, once, retryAfterSeconds, SWEEP_EVERY_MS, type StoredHit } from './window';

/** One allowed hit: ticket `n` of key `k`, its `_id` being `k#n`. */
interface Ticket extends StoredHit {
  _id: string;
  k: string;
  n: number;
  released?: boolean;
  /** When the sweep (or a TTL index) may remove the ticket: a day after it left its window. */
  sweepAfter: Date;
}

/** Rounds of a hit that meets other hits on the same key (in any process) before it fails closed. */
const MAX_ROUNDS = 20;
/**
 * A hit whose ticket is written longer than this after it began gives it back and is refused:
 * so that a ticket deleted FORGET_AFTER_MS after its window cannot be written again by a hit
 * that read the key before it existed (its number would be free again).
 */
const STALE_MS = 2 * 60_000;
/** Tickets this long past their window are deleted by the key's next allowed hit (over 2 * STALE_MS, with room for clock skew). */
const FORGET_AFTER_MS = 10 * 60_000;
/** How long a key's last tickets are kept after their window (see the class comment). */
const IDLE_KEEP_MS = 24 * 3600 * 1000;
const DUPLICATE_KEY = 11000;
const NOT_IMPLEMENTED = 238;

/** The number after the key's newest ticket. */
function nextNumber(held: Ticket[]): number {
  return held.length === 0 ? 0 : held[held.length - 1]!.n + 1;
}

/** The tickets that count at `now`: in the window and not given back. */
function counting(held: Ticket[], rule: LimitRule, now: number): Ticket[] {
  return held.filter((t) => t.at > now - rule.windowMs && !t.released);
}

/**
 * The limit store of the distributed profile, in `_limits` beside the read models. Each allowed
 * hit inserts the key's next ticket (`<key>#<n>`): a hit reads the key's tickets, decides, and
 * inserts ticket max+1; two hits that decided on the same tickets race for one `_id`, and the
 * loser counts the winner's ticket as a hit and tries the number after it. So every ticket was
 * decided on all the tickets below it, and a key never holds more live tickets than its limit.
 * The unique `_id` is the only atomic step it relies on: FerretDB v1 (no transactions) updates a
 * document by reading it and writing it back, so concurrent `$push`, `$inc` or conditional
 * `findOneAndUpdate` on one document lose writes (30 parallel `$inc` left 1 on v1.24.2), while a
 * duplicate `_id` is refused by SQLite's unique index.
 *
 * A ticket given back is marked `released`, not deleted (its number must stay taken). Tickets
 * FORGET_AFTER_MS past their window are deleted by the key's next allowed hit; a key's last
 * tickets a day past their window by a TTL index or, on FerretDB (no TTL indexes), the sweep.
 * Only hits at the very moment a key idle for a day is swept can decide on it as empty beside
 * hits that read it just before; each group then keeps the limit, together up to twice it.
 */
export class MongoCounterStore implements CounterStore {
  readonly kind = 'mongodb';
  private lastSweep = 0;

  private constructor(
    private readonly client: MongoClient,
    private readonly tickets: Collection<Ticket>,
    private readonly clock: () => number,
  ) {}

  /** A client of its own (closed with the store), on the read models' database. `clock`: tests only. */
  static async connect(url: string, dbName: string, options: { collection?: string; clock?: () => number } = {}): Promise<MongoCounterStore> {
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
      return new MongoCounterStore(client, tickets, options.clock ?? Date.now);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  async hit(key: string, rule: LimitRule, options: { tag?: string; now?: number } = {}): Promise<HitOutcome> {
    const began = this.clock();
    const now = options.now ?? began;
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      this.sweep(now).catch((error: unknown) => console.error('limits: sweep of _limits failed:', error));
    }
    let held = await this.held(key);
    // Numbers found taken since `held` was read: counted as live hits (never fewer than there are).
    let unseen = 0;
    let n = nextNumber(held);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const live = counting(held, rule, now);
      if (live.length + unseen >= rule.limit) {
        if (unseen === 0) return { allowed: false, retryAfterSeconds: retryAfterSeconds(live, rule, now), earlier: live.map(asHit) };
        // Full only with the unseen ones: look before refusing (some may have been given back).
        held = await this.held(key);
        unseen = 0;
        n = nextNumber(held);
        continue;
      }
      const ticket: Ticket = { _id: `${key}#${n}`, k: key, n, at: now, id: randomUUID(), sweepAfter: new Date(now + rule.windowMs + IDLE_KEEP_MS), ...(options.tag === undefined ? {} : { tag: options.tag }) };
      if (await this.insert(ticket)) return this.taken(ticket, unseen === 0 ? held : await this.held(key, n), rule, began);
      // Taken: the next number, counting this one, without reading again (parallel hits on one
      // key then cost an insert per number each, not a read and an insert per round).
      n++;
      unseen++;
    }
    // Fails closed: more hits on this key at once than MAX_ROUNDS rounds decide.
    return { allowed: false, retryAfterSeconds: 1, earlier: [] };
  }

  /** The outcome of a hit whose ticket was written, decided on `before` (every ticket below it). */
  private async taken(ticket: Ticket, before: Ticket[], rule: LimitRule, began: number): Promise<HitOutcome> {
    const release = once(async () => {
      await this.tickets.updateOne({ _id: ticket._id }, { $set: { released: true } });
    });
    if (this.clock() - began > STALE_MS) {
      await release();
      return { allowed: false, retryAfterSeconds: 1, earlier: [] };
    }
    const gone = before.filter((t) => t.at <= ticket.at - rule.windowMs - FORGET_AFTER_MS).map((t) => t._id);
    if (gone.length > 0) await this.tickets.deleteMany({ _id: { $in: gone } });
    const earlier = counting(before, rule, ticket.at).map(asHit);
    return { allowed: true, remaining: Math.max(0, rule.limit - earlier.length - 1), earlier, release };
  }

  /** The key's tickets (below number `below`), in number order. */
  private held(key: string, below?: number): Promise<Ticket[]> {
    return this.tickets.find(below === undefined ? { k: key } : { k: key, n: { $lt: below } }).sort({ n: 1 }).toArray();
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
