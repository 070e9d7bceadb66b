import { describe, expect, it } from 'vitest';
import type { MatchEvidence } from '../matching';
import {
  decideForget,
  decideManual,
  decidePair,
  decideProposals,
  eventsOfChanges,
  evolveSide,
  emptySide,
  type MatchBook,
  type MatchChange,
  type SideEvent,
  type SideState,
} from './sides';

const evidence: MatchEvidence = { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: [] };

/**
 * Given / when / then over side streams: each decision sees only the streams of the sides it
 * names (a book that throws on any other), and its events are appended to each side's stream.
 */
function sides() {
  const streams = new Map<string, Array<SideEvent & { position: number }>>();
  let n = 0;
  /** The log position of the last event appended (each event gets the next one, as in the log). */
  let position = 0;
  const newId = () => `m${++n}`;
  const state = (key: string): SideState => {
    let s = emptySide();
    for (const e of streams.get(key) ?? []) s = evolveSide(s, e);
    return s;
  };
  const book: MatchBook = { receipt: (id) => state(`r:${id}`), transaction: (id) => state(`t:${id}`) };
  const apply = (changes: MatchChange[]) => {
    const { receipts, transactions } = eventsOfChanges('c', 'ada', changes);
    const at = (events: SideEvent[]) => events.map((e) => ({ ...e, position: ++position }));
    for (const [id, events] of receipts) streams.set(`r:${id}`, [...(streams.get(`r:${id}`) ?? []), ...at(events)]);
    for (const [id, events] of transactions) streams.set(`t:${id}`, [...(streams.get(`t:${id}`) ?? []), ...at(events)]);
    return changes;
  };
  const auto = (pairs: Array<[string, string]>, considered: Array<{ matchId: string; receiptId: string; transactionId: string }> = [], evidenceAt?: number) =>
    apply(decideProposals({ threshold: 75, origin: 'auto', proposals: pairs.map(([receiptId, transactionId]) => ({ receiptId, transactionId, confidence: 90, evidence })), considered, newId, ...(evidenceAt !== undefined ? { evidenceAt } : {}) }, book));
  const act = (type: 'ConfirmMatch' | 'RejectMatch' | 'DeleteMatch', matchId: string, receiptId: string, transactionId: string, role: 'admin' | 'user' = 'admin', by = 'ada') =>
    apply(decidePair(type, { companyId: 'c', by, role, matchId, receiptId, transactionId, side: { receiptName: `${receiptId}.jpg`, receiptOwner: 'bo', transactionOwner: 'bo' } }, book));
  const manual = (receiptId: string, transactionId: string) =>
    apply(decideManual({ by: 'ada', role: 'admin', receiptId, transactionId, confidence: 50, evidence, side: { receiptName: `${receiptId}.jpg` }, newId }, book));
  const status = (matchId: string, receiptId: string, transactionId: string) => [book.receipt(receiptId).matches.get(matchId)?.status, book.transaction(transactionId).matches.get(matchId)?.status];
  return { streams, book, auto, act, manual, status, apply, position: () => position };
}
const kinds = (changes: MatchChange[]) => changes.map((c) => `${c.kind}:${c.match.matchId}`);

describe('matches on the streams of their sides', () => {
  it('a run started by evidence older than a person’s deletion of the pair does not propose it again; newer evidence or a run asked for now does', () => {
    const given = () => {
      const s = sides();
      s.auto([['r1', 't1']]);
      const read = s.position(); // the evidence: what the first run was started by
      s.act('ConfirmMatch', 'm1', 'r1', 't1');
      s.act('DeleteMatch', 'm1', 'r1', 't1');
      return { s, read };
    };
    // A job of that evidence retried or run late, after the deletion: nothing.
    const late = given();
    expect(late.s.auto([['r1', 't1']], [], late.read)).toEqual([]);
    // Known from either side's record alone (the receipt's public events, the transaction's notes).
    const receiptOnly = given();
    receiptOnly.s.streams.delete('t:t1');
    expect(receiptOnly.s.auto([['r1', 't1']], [], receiptOnly.read)).toEqual([]);
    const transactionOnly = given();
    transactionOnly.s.streams.delete('r:r1');
    expect(transactionOnly.s.auto([['r1', 't1']], [], transactionOnly.read)).toEqual([]);
    // Evidence after the deletion (a correction, an edit), or a run a person asks for now: proposed again.
    const newer = given();
    expect(kinds(newer.s.auto([['r1', 't1']], [], newer.s.position()))).toEqual(['suggested:m2']);
    const asked = given();
    expect(kinds(asked.s.auto([['r1', 't1']]))).toEqual(['suggested:m2']);
    // Suggested again by newer evidence: a late run of the old evidence keeps that suggestion, never withdraws it.
    const again = given();
    expect(kinds(again.s.auto([['r1', 't1']], [], again.s.position()))).toEqual(['suggested:m2']);
    expect(again.s.auto([['r1', 't1']], [{ matchId: 'm2', receiptId: 'r1', transactionId: 't1' }], again.read)).toEqual([]);
    expect(again.s.status('m2', 'r1', 't1')).toEqual(['pending', 'pending']);
    // Another pair of the same receipt is not held back by it.
    const other = given();
    expect(kinds(other.s.auto([['r1', 't2']], [], other.read))).toEqual(['suggested:m2']);
  });

  it('suggests a pair once; both sides know it; a re-run keeps it', () => {
    const s = sides();
    expect(kinds(s.auto([['r1', 't1']]))).toEqual(['suggested:m1']);
    expect(s.status('m1', 'r1', 't1')).toEqual(['pending', 'pending']);
    expect(s.auto([['r1', 't1']])).toEqual([]);
    // Public events in the receipt's stream, the transaction's note in its own.
    expect(s.streams.get('r:r1')!.map((e) => e.type)).toEqual(['MatchesSuggested']);
    expect(s.streams.get('t:t1')!.map((e) => e.type)).toEqual(['MatchesNoted']);
  });

  it('never proposes a rejected pair again, and a rejected match cannot be confirmed', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    s.act('RejectMatch', 'm1', 'r1', 't1');
    expect(s.auto([['r1', 't1']])).toEqual([]);
    expect(() => s.act('ConfirmMatch', 'm1', 'r1', 't1')).toThrow(expect.objectContaining({ code: 'match_rejected' }));
    // Each side stays free for other pairs.
    expect(kinds(s.auto([['r1', 't2']]))).toEqual(['suggested:m2']);
  });

  it('confirms one to one: rivals on either side are withdrawn on their own sides too', () => {
    const s = sides();
    s.auto([['r1', 't1'], ['r2', 't2']]);
    s.apply(decideProposals({ threshold: 0, origin: 'find', proposals: [{ receiptId: 'r3', transactionId: 't1', confidence: 60, evidence }], considered: [], newId: () => 'm9' }, s.book));
    // m9 took t1 from m1 (a newer run's suggestion): confirm it; r1's suggestion is already gone.
    expect(s.status('m1', 'r1', 't1')).toEqual(['withdrawn', 'withdrawn']);
    expect(kinds(s.act('ConfirmMatch', 'm9', 'r3', 't1'))).toEqual(['confirmed:m9']);
    expect(s.status('m9', 'r3', 't1')).toEqual(['confirmed', 'confirmed']);
    expect(() => s.manual('r2', 't1')).toThrow(expect.objectContaining({ code: 'transaction_already_matched' }));
    expect(() => s.manual('r3', 't2')).toThrow(expect.objectContaining({ code: 'receipt_already_matched' }));
    // A pending pair on a confirmed side is never proposed nor confirmed.
    expect(s.auto([['r3', 't5']])).toEqual([]);
  });

  it('withdraws the rivals of a confirmed pair in both of their sides', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    s.apply(decideProposals({ threshold: 0, origin: 'find', proposals: [{ receiptId: 'r2', transactionId: 't2', confidence: 60, evidence }], considered: [], newId: () => 'f1' }, s.book));
    // A person matches r1 to t2 by hand: m1 (on r1) and f1 (on t2) go, in the streams of t1 and r2 too.
    expect(kinds(s.manual('r1', 't2'))).toEqual(['withdrawn:m1', 'withdrawn:f1', 'suggested:m2', 'confirmed:m2']);
    expect(s.status('m1', 'r1', 't1')).toEqual(['withdrawn', 'withdrawn']);
    expect(s.status('f1', 'r2', 't2')).toEqual(['withdrawn', 'withdrawn']);
  });

  it('keeps people’s decisions from auto-match: a confirmed match is never withdrawn by a run', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    s.act('ConfirmMatch', 'm1', 'r1', 't1');
    expect(s.auto([['r1', 't2'], ['r2', 't1']], [{ matchId: 'm1', receiptId: 'r1', transactionId: 't1' }])).toEqual([]);
    expect(s.status('m1', 'r1', 't1')).toEqual(['confirmed', 'confirmed']);
  });

  it('withdraws a considered suggestion the run no longer proposes', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    expect(kinds(s.auto([], [{ matchId: 'm1', receiptId: 'r1', transactionId: 't1' }]))).toEqual(['withdrawn:m1']);
    expect(s.status('m1', 'r1', 't1')).toEqual(['withdrawn', 'withdrawn']);
  });

  it('refuses a plain member another member’s match, and an unknown or withdrawn match', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    expect(() => s.act('ConfirmMatch', 'm1', 'r1', 't1', 'user', 'cy')).toThrow(expect.objectContaining({ code: 'match_not_found' }));
    expect(() => s.act('ConfirmMatch', 'm1', 'r1', 't1', 'user', 'bo')).not.toThrow();
    expect(() => s.act('ConfirmMatch', 'nope', 'r1', 't1')).toThrow(expect.objectContaining({ code: 'match_not_found' }));
    // The pair named must be the match's own.
    expect(() => s.act('DeleteMatch', 'm1', 'r1', 't9')).toThrow(expect.objectContaining({ code: 'match_not_found' }));
  });

  it('deletes a confirmed match with the receipt’s name it was confirmed with; the sides are free again', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    s.act('ConfirmMatch', 'm1', 'r1', 't1');
    const [deleted] = s.act('DeleteMatch', 'm1', 'r1', 't1');
    expect(deleted).toMatchObject({ kind: 'deleted', receiptName: 'r1.jpg', wasConfirmed: true });
    expect(() => s.act('DeleteMatch', 'm1', 'r1', 't1')).toThrow(expect.objectContaining({ code: 'match_not_found' }));
    expect(kinds(s.manual('r2', 't1'))).toEqual(['suggested:m2', 'confirmed:m2']);
  });

  it('forgets a deleted transaction: its pending matches withdrawn and its confirmed one deleted, on the receipts’ streams', () => {
    const s = sides();
    s.auto([['r1', 't1']]);
    s.act('ConfirmMatch', 'm1', 'r1', 't1');
    const changes = s.apply(decideForget('transaction', 't1', s.book));
    expect(changes).toEqual([expect.objectContaining({ kind: 'deleted', receiptName: 'r1.jpg', wasConfirmed: true })]);
    expect(s.streams.get('r:r1')!.map((e) => e.type)).toEqual(['MatchesSuggested', 'MatchConfirmed', 'MatchDeleted']);
  });

  it('reads a side the old stream was carried into like one written since', () => {
    let r = emptySide();
    r = evolveSide(r, { type: 'MatchesNoted', data: { companyId: 'c', reason: 'carried', matches: [
      { matchId: 'old1', receiptId: 'r1', transactionId: 't1', confidence: 80, status: 'rejected' },
      { matchId: 'old2', receiptId: 'r1', transactionId: 't2', confidence: 90, status: 'confirmed', receiptName: 'r1.jpg' },
    ] } });
    const book: MatchBook = { receipt: (id) => (id === 'r1' ? r : emptySide()), transaction: () => emptySide() };
    expect(decideProposals({ threshold: 0, origin: 'auto', proposals: [{ receiptId: 'r1', transactionId: 't1', confidence: 99, evidence }], considered: [], newId: () => 'x' }, book)).toEqual([]);
    expect(() => decideManual({ by: 'ada', role: 'admin', receiptId: 'r1', transactionId: 't3', confidence: 0, evidence, side: {}, newId: () => 'y' }, book)).toThrow(expect.objectContaining({ code: 'receipt_already_matched' }));
    expect(decidePair('DeleteMatch', { companyId: 'c', by: 'ada', role: 'admin', matchId: 'old2', receiptId: 'r1', transactionId: 't2', side: {} }, book)).toEqual([expect.objectContaining({ kind: 'deleted', receiptName: 'r1.jpg', wasConfirmed: true })]);
  });
});
