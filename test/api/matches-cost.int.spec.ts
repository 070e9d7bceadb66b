import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptMatchesStream, transactionMatchesStream, type EventStore, type NewEvent, type StreamAppend } from '@paperlink/domain';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { BANK_CSV, imageOf, labelledReader, labels } from '../support/labelled-reader';

/**
 * ADR 0021: a match decision reads the streams of its pair, so its cost does
 * not grow with the company's matches. Every stream a request reads is recorded (a wrapped event
 * store, and the request's async context, so that jobs running meanwhile are not counted); the same decisions are taken with a few matches in the company and again after 3,000
 * more matches were added to its history. Deciding on one stream of all the company's matches
 * (the design before) reads thousands of events more the second time, and fails here.
 */
interface Reads {
  streams: string[];
  events: number;
}
const recording = new AsyncLocalStorage<Reads>();
const counting = (inner: EventStore): EventStore =>
  new Proxy(inner, {
    get(target, prop) {
      if (prop === 'readStream') {
        return async (...args: Parameters<EventStore['readStream']>) => {
          const out = await target.readStream(...args);
          const r = recording.getStore();
          if (r) {
            r.streams.push(args[0]);
            r.events += out.length;
          }
          return out;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
/** A request whose reads are recorded (in its own async context). */
async function reads(send: (http: ReturnType<typeof request>) => Promise<unknown>): Promise<Reads> {
  const r: Reads = { streams: [], events: 0 };
  await send(request((req: IncomingMessage, res: ServerResponse) => recording.run(r, () => api.paperlink.app(req, res))));
  return r;
}

let api: Api;
let ada: Account;
const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as { receipt_to_transaction: Record<string, unknown> };
const withLine = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 6);
type Row = { id: string; receipt_id: string; transaction_id: string };
const pending = async () => ((await api.http.get('/api/matches/pending').set(ada.headers())).body as Row[]).sort((a, b) => a.id.localeCompare(b.id));

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader(), wrapEvents: counting });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv').expect(200);
  for (const l of withLine) await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', imageOf(l.id), `${l.id}.jpg`).expect(201);
  for (let i = 0; i < 200 && (await pending()).length < withLine.length; i++) await new Promise((r) => setTimeout(r, 50));
  expect(await pending()).toHaveLength(withLine.length);
});
afterAll(() => api?.close());

/** 3,000 confirmed matches of other receipts and lines in the company's history, as the commands write them. */
async function addHistory(n: number): Promise<void> {
  const events = api.paperlink.adapters.events;
  const meta = { companyId: ada.companyId, userId: ada.userId, occurredAt: new Date().toISOString() };
  const ev = (type: string, data: unknown): NewEvent => ({ id: randomUUID(), type, data, metadata: meta });
  const appends: StreamAppend[] = [];
  for (let k = 0; k < n; k++) {
    const [matchId, receiptId, transactionId] = [randomUUID(), randomUUID(), randomUUID()];
    const m = { matchId, receiptId, transactionId };
    appends.push({ streamId: transactionMatchesStream(transactionId), expectedRevision: 'no_stream', events: [ev('MatchesNoted', { companyId: ada.companyId, reason: 'mirror', matches: [{ ...m, confidence: 90, status: 'confirmed', receiptName: `r${k}.jpg` }] })] });
    appends.push({
      streamId: receiptMatchesStream(receiptId),
      expectedRevision: 'no_stream',
      events: [
        ev('MatchesSuggested', { companyId: ada.companyId, origin: 'auto', threshold: 75, by: ada.userId, suggestions: [{ ...m, confidence: 90, evidence: { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 0, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: [] } }] }),
        ev('MatchConfirmed', { companyId: ada.companyId, ...m, receiptName: `r${k}.jpg`, by: ada.userId }),
      ],
    });
  }
  for (let i = 0; i < appends.length; i += 1000) await events.appendMany(appends.slice(i, i + 1000));
  await api.paperlink.runner.waitFor(await events.headPosition());
}

/** Reads of a confirm, a reject, a manual match and a delete, on the pending suggestions left. */
async function decisions(): Promise<Record<string, Reads>> {
  const [a, b, c] = await pending();
  const out: Record<string, Reads> = {};
  out.confirm = await reads((http) => http.put(`/api/matches/${a!.id}/confirm`).set(ada.headers()).expect(200));
  out.reject = await reads((http) => http.put(`/api/matches/${b!.id}/reject`).set(ada.headers()).expect(200));
  out.manual = await reads((http) => http.post('/api/matches').set(ada.headers()).send({ receiptId: c!.receipt_id, transactionId: c!.transaction_id }).expect(200));
  out.delete = await reads((http) => http.delete(`/api/matches/${a!.id}`).set(ada.headers()).expect(200));
  return out;
}

describe('the cost of a match decision', () => {
  it('reads only the streams of its pair, as many events with 3,000 more matches in the company', async () => {
    const before = await decisions();
    await addHistory(3000);
    expect((await api.http.get('/api/matches/stats').set(ada.headers())).body.confirmed_matches).toBeGreaterThanOrEqual(3000);
    const after = await decisions();
    console.log('events read per decision, before and after 3,000 more matches:', JSON.stringify(Object.fromEntries(Object.keys(after).map((k) => [k, [before[k]!.events, after[k]!.events]]))));
    for (const [name, r] of Object.entries(after)) {
      // The pair's two side streams, and the request's record when a retry id is sent.
      expect(r.streams.every((s) => s.startsWith('receiptMatches-') || s.startsWith('transactionMatches-') || s.startsWith('request-')), `${name}: ${r.streams.join(', ')}`).toBe(true);
      // Its pair's two side streams at least (the recording sees the request's reads), at most those and the request's record.
      expect(r.streams.filter((s) => !s.startsWith('request-')).length, `${name}: ${r.streams.join(', ')}`).toBe(2);
      expect(r.events, name).toBeGreaterThan(0);
      expect(r.events, name).toBeLessThanOrEqual(before[name]!.events + 2);
      expect(r.events, name).toBeLessThan(20);
    }
  });
});
