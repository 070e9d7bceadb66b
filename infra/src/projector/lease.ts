/**
 * One active projector (ADR 0032). With the read models on a server (MongoDB), projector
 * processes compete for a lease kept beside them: the holder renews it every RENEW_MS; a standby
 * reads it every STANDBY_POLL_MS and takes it over once it has seen it unchanged for TTL_MS by its own
 * clock (no clocks are compared between machines), or at once when it was released. Each
 * takeover raises the fencing token, and every write of the read store checks that its token is
 * still the current one (mongo-write.ts), so a holder that was paused or cut off and has lost the
 * lease can no longer change anything. The holder stops writing on its own once its last renewal
 * is older than TTL_MS - RENEW_MS (a standby waits TTL_MS from when it saw that renewal).
 * Embedded stores keep the data folder's lock file instead (one machine).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * The writer's right to write: the lease it holds. Every write of the read store checks it twice
 * (mongo-write.ts): in the process (`valid`: renewed recently enough that no standby can have taken
 * over) and on the server (the lease document still names this owner and token).
 */
export interface WriteFence {
  lease: string;
  owner: string;
  /** The fencing token taken with the lease; undefined while it is not held (a standby). */
  token(): number | undefined;
  valid(): boolean;
  /**
   * Resolves once the lease is surely held again (a renewal went through: a busy server delays
   * renewals behind the writer's own writes), rejects once it is lost. Without it, a write waits for nothing.
   */
  whenHeld?(): Promise<void>;
}

/** A write refused because this process no longer holds the projector lease (or never did). */
export class FencedError extends Error {
  readonly code = 'fenced';
}

export interface LeaseRecord {
  owner: string | null;
  token: number;
  /** Bumped by every renewal: a standby watches it move. */
  beat: number;
  /** The holder's projections stopped on this error (health answers 503 everywhere). */
  failure: string | null;
}

/** Where a lease is kept (mongo-lease.ts: a document of the read store). Every change is conditional. */
export interface LeaseStore {
  read(name: string): Promise<LeaseRecord | null>;
  /** Creates the lease held by `owner` (token 1); null when it exists already. */
  create(name: string, owner: string): Promise<LeaseRecord | null>;
  /** Takes the lease over as it was seen (same owner, token and beat), raising the token; null when it moved meanwhile. */
  takeOver(name: string, seen: LeaseRecord, owner: string): Promise<LeaseRecord | null>;
  /** Renews it while `owner` holds it at `token`; false when it does not. */
  renew(name: string, owner: string, token: number, failure: string | null): Promise<boolean>;
  release(name: string, owner: string, token: number): Promise<void>;
}

export interface LeaseTiming {
  ttlMs: number;
  renewMs: number;
  /** How often a process that only watches the lease (health) reads it. */
  pollMs: number;
  /**
   * How often a standby projector reads it. A standby's reads do not move the safety margin (it
   * waits TTL from when it saw a renewal, which is after the holder sent it); they only decide
   * how late after TTL it notices: one read of one document by id, four a second, per standby.
   */
  standbyPollMs: number;
}

/**
 * A standby takes over at most TTL + 2 standby polls after the holder's last renewal: 6.5 s. The
 * holder stops writing 4.5 s after it sent its last renewal that went through (three renewals in a
 * row missed), 1.5 s before any standby can take over (ADR 0032).
 */
export const LEASE_TIMING: LeaseTiming = { ttlMs: 6000, renewMs: 1500, pollMs: 1000, standbyPollMs: 250 };

/** A renewal slower than this is logged: writes pause once none went through for TTL - RENEW. */
const SLOW_RENEWAL_MS = 1000;

export interface LeaseOptions extends Partial<LeaseTiming> {
  owner?: string;
  /** The holder's projections' error, if they stopped (told to every process through the lease). */
  failure?: () => unknown;
  now?: () => number;
  log?: (message: string) => void;
}

export class ProjectorLease {
  readonly owner: string;
  private readonly timing: LeaseTiming;
  private readonly now: () => number;
  readonly log: (message: string) => void;
  private token?: number;
  /** When the last renewal that succeeded was sent. */
  private renewedAt = -Infinity;
  private seen?: LeaseRecord;
  private seenAt = -Infinity;
  private mode: 'compete' | 'watch' = 'watch';
  private timer?: NodeJS.Timeout;
  private closed = false;
  private warned = false;
  private readonly activeListeners: Array<() => Promise<void> | void> = [];
  private readonly lostListeners: Array<() => void> = [];
  /** Writes waiting for a late renewal (whenHeld). */
  private waiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  constructor(private readonly store: LeaseStore, readonly name = 'projector', private readonly options: LeaseOptions = {}) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.timing = { ...LEASE_TIMING, ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in LEASE_TIMING && v !== undefined)) };
    this.now = options.now ?? (() => performance.now());
    this.log = options.log ?? ((m) => console.warn(m));
  }

  /** A projector process: takes the lease if it is free (resolves with whether it holds it), then keeps competing. */
  async compete(): Promise<boolean> {
    this.mode = 'compete';
    await this.tick();
    return this.holding;
  }

  /** A process that only reads the read models: follows who holds the lease (health). */
  async watch(): Promise<void> {
    this.mode = 'watch';
    await this.tick();
  }

  /** Held, and renewed recently enough that no standby can have taken it over. */
  get holding(): boolean {
    return this.token !== undefined && this.now() - this.renewedAt < this.timing.ttlMs - this.timing.renewMs;
  }

  /** Whether some projector holds the lease (this one or another) and its projections have not stopped. */
  healthy(): boolean {
    if (this.token !== undefined) return this.holding && this.ownFailure() === null;
    return this.seen !== undefined && this.seen.owner !== null && this.seen.failure === null && this.now() - this.seenAt < this.timing.ttlMs;
  }

  /** The fence every write of the read store checks (mongo-write.ts). */
  fence(): WriteFence {
    return { lease: this.name, owner: this.owner, token: () => this.token, valid: () => this.holding, whenHeld: () => this.whenHeld() };
  }

  /** Resolves at the next renewal that goes through (at once while held surely); rejects when the lease is lost, or after a TTL without one. */
  whenHeld(): Promise<void> {
    if (this.holding) return Promise.resolve();
    if (this.token === undefined) return Promise.reject(new FencedError(`${this.owner} does not hold the ${this.name} lease`));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== resolve);
        reject(new FencedError(`the ${this.name} lease was not renewed for ${this.timing.ttlMs} ms: ${this.owner} stops writing`));
      }, this.timing.ttlMs);
      timer.unref();
      this.waiters.push({ resolve: () => (clearTimeout(timer), resolve()), reject: (e) => (clearTimeout(timer), reject(e)) });
    });
  }

  private settleWaiters(error?: Error): void {
    const waiters = this.waiters.splice(0);
    for (const w of waiters) if (error) w.reject(error);
    else w.resolve();
  }

  /** Runs `work` once this process holds the lease (at once when it does). */
  onActive(work: () => Promise<void> | void): void {
    if (this.token !== undefined) void this.run(work);
    else this.activeListeners.push(work);
  }

  /** Called when another process took the lease over from this one. */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** Stops competing; a lease held is released, so a standby takes it at its next look. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const token = this.token;
    this.token = undefined;
    this.settleWaiters(new FencedError(`${this.owner} stopped`));
    if (token !== undefined) await this.store.release(this.name, this.owner, token).catch(() => undefined);
  }

  private ownFailure(): string | null {
    const f = this.options.failure?.();
    return f === undefined || f === null ? null : String(f instanceof Error ? f.message : f).slice(0, 500);
  }

  private async run(work: () => Promise<void> | void): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.log(`starting the active projector failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async tick(): Promise<void> {
    try {
      if (this.token !== undefined) await this.renew();
      else await this.look();
      this.warned = false;
    } catch (error) {
      // The server unreachable: tried again at the next tick (a holder stops writing once its lease lapses).
      if (!this.warned) this.log(`projector lease: ${error instanceof Error ? error.message : String(error)}`);
      this.warned = true;
    }
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), this.token !== undefined ? this.timing.renewMs : this.mode === 'compete' ? this.timing.standbyPollMs : this.timing.pollMs);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const sent = this.now();
    if (await this.store.renew(this.name, this.owner, this.token!, this.ownFailure())) {
      const took = this.now() - sent;
      if (took > SLOW_RENEWAL_MS) this.log(`projector lease: a renewal took ${Math.round(took)} ms (writes pause once none went through for ${this.timing.ttlMs - this.timing.renewMs} ms)`);
      this.renewedAt = sent;
      if (this.holding) this.settleWaiters();
      return;
    }
    this.log(`projector lease: taken over from ${this.owner} (token ${this.token}); this process writes no more read models`);
    this.token = undefined;
    this.mode = 'watch';
    this.settleWaiters(new FencedError(`the ${this.name} lease was taken over from ${this.owner}`));
    for (const listener of this.lostListeners) listener();
  }

  private observe(record: LeaseRecord | null): void {
    const same = record && this.seen && record.owner === this.seen.owner && record.token === this.seen.token && record.beat === this.seen.beat;
    if (record && !same) this.seenAt = this.now();
    this.seen = record ?? undefined;
  }

  private async look(): Promise<void> {
    const sent = this.now();
    const record = await this.store.read(this.name);
    this.observe(record);
    if (this.mode !== 'compete' || this.closed) return;
    let got: LeaseRecord | null = null;
    if (!record) got = await this.store.create(this.name, this.owner);
    else if (record.owner === null || this.now() - this.seenAt >= this.timing.ttlMs) got = await this.store.takeOver(this.name, record, this.owner);
    if (!got) return;
    this.token = got.token;
    this.renewedAt = sent;
    this.observe(got);
    this.log(`projector lease: held by ${this.owner} (token ${got.token})${record?.owner ? `, taken over from ${record.owner}` : ''}`);
    // In the background: a catch-up takes longer than a renewal period, and renewals go on meanwhile.
    const listeners = this.activeListeners.splice(0);
    void (async () => {
      const began = this.now();
      for (const work of listeners) await this.run(work);
      if (listeners.length > 0) this.log(`projector lease: ${this.owner} started its projections in ${Math.round(this.now() - began)} ms`);
    })();
  }
}

/**
 * The lease of a read store that has one (MongoDB; undefined for the embedded stores, which keep
 * the folder's lock): a projector process competes for it, and its store's writes check it from
 * now on (refused until it is held); other processes watch it for their health.
 */
export async function projectorLease(store: { kind: string }, options: LeaseOptions & { compete: boolean }): Promise<ProjectorLease | undefined> {
  if (store.kind !== 'mongodb') return undefined;
  const { MongoLeaseStore } = await import('../readstore/mongo-lease');
  const mongo = store as unknown as { database: ConstructorParameters<typeof MongoLeaseStore>[0]; fenceWith(fence: WriteFence): void };
  const lease = new ProjectorLease(new MongoLeaseStore(mongo.database), 'projector', options);
  if (!options.compete) {
    await lease.watch();
    return lease;
  }
  mongo.fenceWith(lease.fence());
  if (!(await lease.compete())) lease.log(`projector lease: held by another process; ${lease.owner} stands by`);
  return lease;
}
