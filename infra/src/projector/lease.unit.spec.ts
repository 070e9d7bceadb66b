import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LEASE_TIMING, ProjectorLease, type LeaseRecord, type LeaseStore } from './lease';

/** A lease store in memory, whose calls can be made to hang (a paused or cut-off process). */
class MemoryLeases implements LeaseStore {
  doc: LeaseRecord | null = null;
  private readonly hung = new Map<string, { wait: Promise<void>; resume: () => void }>();

  /** The owner's calls wait (a paused process) until resume. */
  pause(owner: string): void {
    let resume!: () => void;
    const wait = new Promise<void>((r) => (resume = r));
    this.hung.set(owner, { wait, resume });
  }

  resume(owner: string): void {
    this.hung.get(owner)?.resume();
    this.hung.delete(owner);
  }

  private async gate(owner: string): Promise<void> {
    await this.hung.get(owner)?.wait;
  }

  async read(): Promise<LeaseRecord | null> {
    return this.doc && { ...this.doc };
  }

  async create(_name: string, owner: string): Promise<LeaseRecord | null> {
    await this.gate(owner);
    if (this.doc) return null;
    this.doc = { owner, token: 1, beat: 0, failure: null };
    return { ...this.doc };
  }

  async takeOver(_name: string, seen: LeaseRecord, owner: string): Promise<LeaseRecord | null> {
    await this.gate(owner);
    const d = this.doc;
    if (!d || d.owner !== seen.owner || d.token !== seen.token || d.beat !== seen.beat) return null;
    this.doc = { owner, token: d.token + 1, beat: 0, failure: null };
    return { ...this.doc };
  }

  async renew(_name: string, owner: string, token: number, failure: string | null): Promise<boolean> {
    await this.gate(owner);
    if (this.doc?.owner !== owner || this.doc.token !== token) return false;
    this.doc = { ...this.doc, beat: this.doc.beat + 1, failure };
    return true;
  }

  async release(_name: string, owner: string, token: number): Promise<void> {
    if (this.doc?.owner === owner && this.doc.token === token) this.doc = { ...this.doc, owner: null };
  }
}

/** The product's timing: what the fault test's 15 s takeover relies on. */
const timing = LEASE_TIMING;

describe('projector lease', () => {
  let store: MemoryLeases;
  const leases: ProjectorLease[] = [];
  const lease = (owner: string, extra: { failure?: () => unknown } = {}) => {
    const l = new ProjectorLease(store, 'projector', { ...timing, owner, now: () => Date.now(), log: () => {}, ...extra });
    leases.push(l);
    return l;
  };

  beforeEach(() => {
    vi.useFakeTimers();
    store = new MemoryLeases();
  });
  afterEach(async () => {
    for (const l of leases.splice(0)) await l.close();
    vi.useRealTimers();
  });

  it('is held by the first projector; a second stands by while the first renews it', async () => {
    const a = lease('a');
    const b = lease('b');
    expect(await a.compete()).toBe(true);
    expect(await b.compete()).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(a.holding).toBe(true);
    expect(b.holding).toBe(false);
    expect(store.doc).toMatchObject({ owner: 'a', token: 1 });
    expect(a.fence().token()).toBe(1);
    expect(b.fence().token()).toBeUndefined();
    expect(a.healthy() && b.healthy()).toBe(true);
  });

  it('is taken over within TTL and two polls of the holder stopping, with a higher token; the old holder stops writing before that', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.compete();
    await b.compete();
    let active = false;
    b.onActive(() => {
      active = true;
    });
    await vi.advanceTimersByTimeAsync(5000);
    store.pause('a'); // paused: no renewal reaches the server
    const stoppedAt = Date.now();
    let aStopped: number | undefined;
    while (!b.holding) {
      await vi.advanceTimersByTimeAsync(100);
      if (aStopped === undefined && !a.holding) aStopped = Date.now();
      expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    }
    const takenAt = Date.now();
    expect(takenAt - stoppedAt).toBeLessThanOrEqual(timing.ttlMs + 2 * timing.standbyPollMs);
    expect(aStopped).toBeDefined();
    expect(aStopped!).toBeLessThan(takenAt);
    expect(active).toBe(true);
    expect(store.doc).toMatchObject({ owner: 'b', token: 2 });
    expect(b.fence().token()).toBe(2);
    expect(a.fence().valid()).toBe(false);
  });

  it('is taken over at most TTL and two standby polls after the last renewal, whenever in the renewal period the holder dies', async () => {
    expect(timing.ttlMs + 2 * timing.standbyPollMs).toBeLessThanOrEqual(7000);
    for (let phase = 0; phase < timing.renewMs; phase += 100) {
      store = new MemoryLeases();
      const a = lease(`a${phase}`);
      const b = lease(`b${phase}`);
      await a.compete();
      await b.compete();
      await vi.advanceTimersByTimeAsync(5 * timing.renewMs + phase);
      store.pause(`a${phase}`); // dead: its next renewal never lands
      const diedAt = Date.now();
      while (!b.holding) {
        await vi.advanceTimersByTimeAsync(10);
        expect(Date.now() - diedAt).toBeLessThan(15_000);
      }
      expect(Date.now() - diedAt, `died ${phase} ms into a renewal period`).toBeLessThanOrEqual(timing.ttlMs + 2 * timing.standbyPollMs + 10);
      expect(Date.now() - diedAt).toBeGreaterThanOrEqual(timing.ttlMs - timing.renewMs);
      await a.close();
      await b.close();
    }
  });

  it('is read every standby poll by a standby projector, every poll by a process that only watches it', async () => {
    const reads = { standby: 0, watcher: 0 };
    const counted = (who: keyof typeof reads): LeaseStore => ({
      read: () => (reads[who]++, store.read()),
      create: (n, o) => store.create(n, o),
      takeOver: (n, seen, o) => store.takeOver(n, seen, o),
      renew: (n, o, t, f) => store.renew(n, o, t, f),
      release: (n, o, t) => store.release(n, o, t),
    });
    await lease('a').compete();
    const standby = new ProjectorLease(counted('standby'), 'projector', { ...timing, owner: 'b', log: () => {} });
    const watcher = new ProjectorLease(counted('watcher'), 'projector', { ...timing, owner: 'w', log: () => {} });
    leases.push(standby, watcher);
    await standby.compete();
    await watcher.watch();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(reads.standby).toBeGreaterThanOrEqual(10_000 / timing.standbyPollMs);
    expect(reads.standby).toBeLessThanOrEqual(10_000 / timing.standbyPollMs + 1);
    expect(reads.watcher).toBeLessThanOrEqual(10_000 / timing.pollMs + 1);
  });

  it('tells the old holder it lost the lease when it resumes, and refuses its writes meanwhile', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.compete();
    await b.compete();
    const lost = vi.fn();
    a.onLost(lost);
    store.pause('a');
    await vi.advanceTimersByTimeAsync(12_000);
    expect(b.holding).toBe(true);
    expect(a.fence().valid()).toBe(false);
    store.resume('a'); // its renewal under way reaches the server, which refuses it
    await vi.advanceTimersByTimeAsync(10);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(a.fence().token()).toBeUndefined();
    expect(store.doc).toMatchObject({ owner: 'b', token: 2 });
  });

  it('is taken over at the next look once released', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.compete();
    await b.compete();
    await a.close();
    await vi.advanceTimersByTimeAsync(timing.pollMs + 10);
    expect(b.holding).toBe(true);
    expect(store.doc).toMatchObject({ owner: 'b', token: 2 });
  });

  it('is unhealthy for a watcher when no projector holds it or the holder reports its projections stopped', async () => {
    const watcher = lease('w');
    await watcher.watch();
    expect(watcher.healthy()).toBe(false); // nobody holds it
    let failure: unknown;
    const a = lease('a', { failure: () => failure });
    await a.compete();
    await vi.advanceTimersByTimeAsync(timing.pollMs + 10);
    expect(watcher.healthy()).toBe(true);
    failure = new Error('a projection threw');
    expect(a.healthy()).toBe(false);
    await vi.advanceTimersByTimeAsync(timing.renewMs + timing.pollMs + 10);
    expect(watcher.healthy()).toBe(false);
    expect(store.doc?.failure).toBe('a projection threw');
    failure = undefined;
    await vi.advanceTimersByTimeAsync(timing.renewMs + timing.pollMs + 10);
    expect(watcher.healthy()).toBe(true);
    store.pause('a'); // the holder died: its beat stops
    await vi.advanceTimersByTimeAsync(timing.ttlMs + timing.pollMs);
    expect(watcher.healthy()).toBe(false);
  });

  it('holds writes back while a renewal is late, and lets them go when it goes through', async () => {
    const a = lease('a');
    await a.compete();
    store.pause('a'); // the server answers late (busy with the writer's own writes)
    await vi.advanceTimersByTimeAsync(timing.ttlMs - timing.renewMs + 100);
    expect(a.holding).toBe(false);
    let released = false;
    const waiting = a.whenHeld().then(() => (released = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(released).toBe(false);
    store.resume('a'); // nobody took it over: the renewal under way goes through
    await vi.advanceTimersByTimeAsync(timing.renewMs + 10);
    await waiting;
    expect(released).toBe(true);
    expect(a.holding).toBe(true);
  });

  it('refuses writes waiting for a renewal once the lease is taken over', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.compete();
    await b.compete();
    store.pause('a');
    await vi.advanceTimersByTimeAsync(timing.ttlMs - timing.renewMs + 100);
    const waiting = a.whenHeld().then(() => 'held', (e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(timing.ttlMs);
    expect(b.holding).toBe(true);
    store.resume('a');
    await vi.advanceTimersByTimeAsync(10);
    expect(await waiting).toMatch(/taken over|not renewed/);
  });
});