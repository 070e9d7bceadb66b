import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, confirmedOf, decideManual, decidePair, decideProposals, NotFoundError, type EventStore, type MatchEvidence, type RequestContext } from '@paperlink/domain';
import { CommandBus } from '../../command-api/src/core/bus';
import { LoadedBook } from '../../command-api/src/matches/book';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';

/**
 * One-to-one under concurrency (ADR 0021): confirmations that share a receipt or a line (a
 * suggestion's and matches by hand), sent at once, on the real SQLite event store through the command bus, with reads slowed so that
 * every plan reads before any appends. The side streams' revisions let one win per side; the
 * others are planned again and refused with 409.
 */
const evidence: MatchEvidence = { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 0, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: [] };
let dir: string;
let store: SqliteEventStore;
let bus: CommandBus;
const companyId = randomUUID();
const ctx: RequestContext = { requestId: 'r', correlationId: 'c', companyId, userId: 'ada', role: 'admin', now: new Date() };

/** Reads wait a turn, so concurrent plans all read before any of them appends. */
function slowReads(inner: EventStore): EventStore {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'readStream') {
        return async (...args: Parameters<EventStore['readStream']>) => {
          const out = await target.readStream(...args);
          await new Promise((r) => setTimeout(r, 5));
          return out;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paperlink-match-concurrency-'));
  store = new SqliteEventStore(join(dir, 'events.sqlite'));
  bus = new CommandBus(slowReads(store));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function suggest(receiptId: string, transactionId: string): Promise<string> {
  let matchId = '';
  await bus.run(ctx, async () => {
    const book = await new LoadedBook(bus.events, companyId).load([receiptId], [transactionId]);
    const changes = decideProposals({ threshold: 0, origin: 'find', proposals: [{ receiptId, transactionId, confidence: 80, evidence }], considered: [], newId: () => (matchId = randomUUID()) }, book);
    return { appends: await book.appends('ada', changes), body: null };
  });
  return matchId;
}

const confirm = (matchId: string, receiptId: string, transactionId: string) =>
  bus.run(ctx, async () => {
    const book = await new LoadedBook(bus.events, companyId).load([receiptId], [transactionId]);
    const changes = decidePair('ConfirmMatch', { companyId, by: 'ada', role: 'admin', matchId, receiptId, transactionId, side: { receiptName: 'r.jpg' } }, book);
    return { appends: await book.appends('ada', changes), body: null };
  });

const manual = (receiptId: string, transactionId: string) =>
  bus.run(ctx, async () => {
    const book = await new LoadedBook(bus.events, companyId).load([receiptId], [transactionId]);
    const changes = decideManual({ by: 'ada', role: 'admin', receiptId, transactionId, confidence: 0, evidence, side: { receiptName: 'r.jpg' }, newId: randomUUID }, book);
    return { appends: await book.appends('ada', changes), body: null };
  });

describe('confirmations at once', () => {
  it('confirm each receipt and each line at most once; the losers are refused (409, or 404 for a suggestion withdrawn meanwhile)', async () => {
    for (let round = 0; round < 8; round++) {
      const [r1, r2, t1, t2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      // A suggestion (r1, t1); at once: its confirmation, r1 matched by hand to t2, and r2 by hand to t1.
      const m = await suggest(r1, t1);
      const settled = await Promise.allSettled([confirm(m, r1, t1), manual(r1, t2), manual(r2, t1)]);
      for (const s of settled) if (s.status === 'rejected') expect([ConflictError, NotFoundError].some((E) => s.reason instanceof E), String(s.reason)).toBe(true);
      const won = settled.map((s) => s.status === 'fulfilled');
      // Either the suggestion, or the two matches by hand (which share nothing with each other).
      expect([[true, false, false], [false, true, true]]).toContainEqual(won);
      const book = await new LoadedBook(store, companyId).load([r1, r2], [t1, t2]);
      const confirmed = [book.receipt(r1), book.receipt(r2), book.transaction(t1), book.transaction(t2)].map((side) => [...side.matches.values()].filter((x) => x.status === 'confirmed').length);
      expect(confirmed, JSON.stringify(confirmed)).toEqual(won[0] ? [1, 0, 1, 0] : [1, 1, 1, 1]);
      // Both streams of a side agree on what is confirmed.
      expect(confirmedOf(book.receipt(r1))?.transactionId).toBe(won[0] ? t1 : t2);
      expect(confirmedOf(book.transaction(t1))?.receiptId).toBe(won[0] ? r1 : r2);
    }
  });
});
