import Database from 'better-sqlite3';
import type { CounterStore, HitOutcome, LimitRule } from '@paperlink/domain';
import { newHit, once, retryAfterSeconds, SWEEP_EVERY_MS } from './window';

interface Row {
  at: number;
  tag: string | null;
}

/**
 * The limit store of processes sharing one data folder (PAPERLINK_ROLE other than `all` on the
 * embedded profile, ADR 0025): a file of its own (`limits.sqlite`), not the read models' (limits
 * are no read model: nothing projects them and a rebuild must not reset them). Each hit is one
 * `BEGIN IMMEDIATE` transaction, so hits from every process on the file are serialised; the
 * rowid orders a key's hits as they were recorded.
 */
export class SqliteCounterStore implements CounterStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly hitTx: (key: string, rule: LimitRule, tag: string | undefined, now: number) => HitOutcome;
  private readonly sweepTx: (now: number) => number;
  private lastSweep = 0;

  constructor(readonly file: string) {
    this.db = new Database(file);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    // A crash may forget the last hits: a limit, not a record.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS limit_hits (
      seq INTEGER PRIMARY KEY, key TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL, expires INTEGER NOT NULL, tag TEXT
    );
    CREATE INDEX IF NOT EXISTS limit_hits_key ON limit_hits (key, seq);
    CREATE INDEX IF NOT EXISTS limit_hits_expires ON limit_hits (expires);`);
    const forget = this.db.prepare<[string, number]>('DELETE FROM limit_hits WHERE key = ? AND at <= ?');
    const read = this.db.prepare<[string], Row>('SELECT at, tag FROM limit_hits WHERE key = ? ORDER BY seq');
    const insert = this.db.prepare<[string, string, number, number, string | null]>('INSERT INTO limit_hits (key, id, at, expires, tag) VALUES (?, ?, ?, ?, ?)');
    const remove = this.db.prepare<[string, string]>('DELETE FROM limit_hits WHERE key = ? AND id = ?');
    const expired = this.db.prepare<[number]>('DELETE FROM limit_hits WHERE expires <= ?');
    const hitTx = this.db.transaction((key: string, rule: LimitRule, tag: string | undefined, now: number): HitOutcome => {
      forget.run(key, now - rule.windowMs);
      const earlier = read.all(key).map((r) => (r.tag === null ? { at: r.at } : { at: r.at, tag: r.tag }));
      if (earlier.length >= rule.limit) return { allowed: false, retryAfterSeconds: retryAfterSeconds(earlier, rule, now), earlier };
      const mine = newHit(now, tag);
      insert.run(key, mine.id, now, now + rule.windowMs, tag ?? null);
      const release = once(async () => {
        if (this.db.open) remove.run(key, mine.id);
      });
      return { allowed: true, remaining: rule.limit - earlier.length - 1, earlier, release };
    });
    this.hitTx = (key, rule, tag, now) => hitTx.immediate(key, rule, tag, now);
    this.sweepTx = (now) => expired.run(now).changes;
  }

  async hit(key: string, rule: LimitRule, options: { tag?: string; now?: number } = {}): Promise<HitOutcome> {
    const now = options.now ?? Date.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) await this.sweep(now);
    return this.hitTx(key, rule, options.tag, now);
  }

  /** Removes the hits that have left their window; how many. */
  async sweep(now = Date.now()): Promise<number> {
    this.lastSweep = now;
    return this.sweepTx(now);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
