/**
 * An auto-match job gives the request thread to requests in flight (RequestActivity): its run
 * waits at its slices while a request is in flight and finishes once it ended, with the same
 * suggestion as a run nobody waited on.
 */
import { describe, expect, it } from 'vitest';
import { CommandBus, type MatchDeps } from '@paperlink/command-api';
import { isoOfDay, dayNumber } from '@paperlink/domain';
import { RECEIPTS, TRANSACTIONS, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { SqliteEventStore } from '../eventstore/sqlite';
import { EmbeddedReadStore } from '../readstore/embedded';
import { knownMatches, matchBlock } from '../matches/match-block';
import { autoMatchJobHandler, type AutoMatchPayload } from '../matches/matching-job';
import { RequestActivity } from './request-activity';

const companyId = 'c1';
const FIRST = dayNumber('2024-01-01')!;

async function world() {
  const store = new EmbeddedReadStore();
  await store.ensureIndexes(TRANSACTIONS, [['companyId'], ['companyId', 'transaction_date'], ['companyId', 'transaction_date', 'amountCents']]);
  const lines = new Map<string, TransactionDoc>();
  for (let d = 0; d < 60; d++) {
    for (let k = 0; k < 10; k++) {
      const id = `t${d}-${k}`;
      lines.set(id, { _id: id, companyId, userId: 'ada', transaction_date: isoOfDay(FIRST + d), description: `SHOP ${k}`, amountCents: -(500 + ((d * 10 + k) * 7919) % 20_000) } as unknown as TransactionDoc);
    }
  }
  const line = lines.get('t30-4')!;
  const receipt = { _id: 'r1', companyId, userId: 'ada', processing_status: 'completed', extractedCents: -line.amountCents, extracted_date: line.transaction_date, extracted_merchant: 'SHOP 4', original_filename: 'r1.jpg' } as unknown as ReceiptDoc;
  await store.commit(new Map<string, Map<string, TransactionDoc | ReceiptDoc>>([[TRANSACTIONS, lines], [RECEIPTS, new Map([[receipt._id, receipt]])]]), []);
  const events = new SqliteEventStore(':memory:');
  const bus = new CommandBus(events);
  const asR = (d: ReceiptDoc) => ({ id: d._id, totalCents: d.extractedCents, date: d.extracted_date, merchant: d.extracted_merchant, uploadedBy: d.userId, owner: d.userId, name: d.original_filename });
  const asT = (d: TransactionDoc) => ({ id: d._id, amountCents: d.amountCents, date: d.transaction_date, description: d.description, cardHolder: d.userId, owner: d.userId });
  const deps: MatchDeps = {
    bus,
    inputs: async () => ({ receipts: [asR(receipt)], transactions: [...lines.values()].map(asT) }),
    receipt: async (_c, id) => (id === receipt._id ? asR(receipt) : null),
    transaction: async (_c, id) => (lines.has(id) ? asT(lines.get(id)!) : null),
    matchSides: async () => null,
    block: matchBlock(store, asR, asT),
    matchesOf: knownMatches(store),
  };
  return { events, deps, line };
}

const job = { id: 'automatch-e1', type: 'match.auto', companyId, payload: { position: 1, seed: { receiptIds: ['r1'] } } as AutoMatchPayload, causationId: 'e1', correlationId: 'e1', attempt: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function suggested(events: SqliteEventStore): Promise<string[]> {
  const all = await events.readAll({ after: 0, maxCount: 1000 });
  return all.filter((e) => e.type === 'MatchesSuggested').flatMap((e) => (e.data as { suggestions: Array<{ receiptId: string; transactionId: string; confidence: number }> }).suggestions.map((m) => `${m.receiptId}|${m.transactionId}|${m.confidence}`));
}

describe('an auto-match job and the requests in flight', () => {
  it('waits while a request is in flight, then suggests what a run nobody waited on suggests', async () => {
    const activity = new RequestActivity({ maxDeferMs: 60_000, quietMs: 0 });
    const { events, deps, line } = await world();
    const res = new EventEmitter();
    activity.middleware()({} as Request, res as unknown as Response, () => undefined);
    let done = false;
    const run = autoMatchJobHandler({ match: deps, events, caughtUp: async () => true, pause: activity.yieldToRequests }).run(job).then(() => (done = true));
    await sleep(300);
    expect(done).toBe(false);
    expect(await suggested(events)).toEqual([]);
    res.emit('finish');
    await run;
    const got = await suggested(events);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(new RegExp(`^r1\\|${line._id}\\|`));

    const alone = await world();
    await autoMatchJobHandler({ match: alone.deps, events: alone.events, caughtUp: async () => true }).run(job);
    expect(await suggested(alone.events)).toEqual(got);
  });
});
