import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import type { MatchEvidence } from '../matching';
import { matchingDecider, type MatchEvent, type MatchingCommand } from './matches';

const evidence: MatchEvidence = { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: [] };

/** A tiny event-sourced harness: each command is decided on the fold of all earlier events. */
function stream() {
  const events: MatchEvent[] = [];
  let n = 0;
  const newId = () => `m${++n}`;
  const run = (command: MatchingCommand): MatchEvent[] => {
    const out = matchingDecider.decide(command, fold(matchingDecider, events));
    events.push(...out);
    return out;
  };
  const auto = (pairs: Array<[string, string]>, scope?: { r: string[]; t: string[] }) =>
    run({
      type: 'ApplyAutoMatch', companyId: 'c', by: 'system', threshold: 75, origin: 'auto', newId,
      proposals: pairs.map(([receiptId, transactionId]) => ({ receiptId, transactionId, confidence: 90, evidence })),
      scope: scope ? { receiptIds: new Set(scope.r), transactionIds: new Set(scope.t) } : 'proposals-only',
    });
  const act = (type: 'ConfirmMatch' | 'RejectMatch' | 'DeleteMatch', matchId: string, role: 'admin' | 'user' = 'admin', by = 'admin') =>
    run({ type, companyId: 'c', by, role, matchId, side: { receiptName: 'r.jpg', receiptOwner: 'alice', transactionOwner: 'alice' } });
  const state = () => fold(matchingDecider, events);
  return { events, run, auto, act, state, newId };
}

const suggestedIds = (out: MatchEvent[]) => out.flatMap((e) => (e.type === 'MatchesSuggested' ? e.data.suggestions.map((s) => s.matchId) : []));

describe('matching stream decider', () => {
  it('suggests a pair once: a re-run keeps the pending suggestion instead of repeating it', () => {
    const s = stream();
    expect(suggestedIds(s.auto([['r1', 't1']]))).toEqual(['m1']);
    expect(s.auto([['r1', 't1']])).toEqual([]);
    expect(s.state().pending.size).toBe(1);
  });

  it('never proposes a rejected pair again', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    expect(s.act('RejectMatch', 'm1').map((e) => e.type)).toEqual(['MatchRejected']);
    expect(s.auto([['r1', 't1']])).toEqual([]);
    expect(s.state().rejected.has('r1|t1')).toBe(true);
  });

  it('keeps a confirmed match through a re-run and proposes nothing else for either side', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    s.act('ConfirmMatch', 'm1');
    const rerun = s.auto([['r1', 't2'], ['r2', 't1'], ['r1', 't1']], { r: ['r1', 'r2'], t: ['t1', 't2'] });
    expect(rerun).toEqual([]);
    expect(s.state().matches.get('m1')?.status).toBe('confirmed');
  });

  it('withdraws pending rivals of a pair when it is confirmed', () => {
    const s = stream();
    s.run({ type: 'ApplyAutoMatch', companyId: 'c', by: 'system', threshold: 60, origin: 'find', newId: s.newId, scope: 'proposals-only',
      proposals: [{ receiptId: 'r1', transactionId: 't1', confidence: 80, evidence }, { receiptId: 'r1', transactionId: 't2', confidence: 70, evidence }] });
    const out = s.act('ConfirmMatch', 'm1');
    expect(out.map((e) => e.type)).toEqual(['MatchesWithdrawn', 'MatchConfirmed']);
    expect(out[0]).toMatchObject({ data: { matchIds: ['m2'] } });
    expect(s.state().matches.get('m2')?.status).toBe('withdrawn');
  });

  it('withdraws a pending suggestion in scope that the newer run no longer proposes', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    const out = s.auto([['r1', 't9']], { r: ['r1'], t: ['t1', 't9'] });
    expect(out.map((e) => e.type)).toEqual(['MatchesWithdrawn', 'MatchesSuggested']);
    expect(s.state().pending.has('r1|t1')).toBe(false);
    expect(s.state().pending.has('r1|t9')).toBe(true);
  });

  it('refuses a second confirmed match for the same receipt or transaction', () => {
    const s = stream();
    s.run({ type: 'ApplyAutoMatch', companyId: 'c', by: 'system', threshold: 60, origin: 'find', newId: s.newId, scope: 'proposals-only',
      proposals: [{ receiptId: 'r1', transactionId: 't1', confidence: 80, evidence }] });
    s.act('ConfirmMatch', 'm1');
    expect(() => s.run({ type: 'CreateManualMatch', companyId: 'c', by: 'admin', role: 'admin', receiptId: 'r1', transactionId: 't2', confidence: 50, evidence, side: {}, newId: s.newId }))
      .toThrow(/already matched/);
    expect(() => s.run({ type: 'CreateManualMatch', companyId: 'c', by: 'admin', role: 'admin', receiptId: 'r2', transactionId: 't1', confidence: 50, evidence, side: {}, newId: s.newId }))
      .toThrow(/already matched/);
  });

  it('refuses to reject a confirmed match; deleting it frees both sides for new suggestions', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    s.act('ConfirmMatch', 'm1');
    expect(() => s.act('RejectMatch', 'm1')).toThrow(/delete it instead/);
    expect(s.act('DeleteMatch', 'm1')).toMatchObject([{ type: 'MatchDeleted', data: { wasConfirmed: true } }]);
    expect(suggestedIds(s.auto([['r1', 't1']]))).toEqual(['m2']);
  });

  it('lets members act only on matches of their own receipts or transactions', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    expect(() => s.act('ConfirmMatch', 'm1', 'user', 'bob')).toThrow(/not found/);
    expect(s.act('ConfirmMatch', 'm1', 'user', 'alice').map((e) => e.type)).toEqual(['MatchConfirmed']);
  });

  it('refuses a member a match or a manual link one side of which belongs to someone else', () => {
    const s = stream();
    s.auto([['r1', 't1']]);
    const half = { receiptName: 'r.jpg', receiptOwner: 'bob', transactionOwner: 'alice' };
    for (const type of ['ConfirmMatch', 'RejectMatch', 'DeleteMatch'] as const) {
      expect(() => s.run({ type, companyId: 'c', by: 'bob', role: 'user', matchId: 'm1', side: half })).toThrow(/not found/);
      expect(() => s.run({ type, companyId: 'c', by: 'bob', role: 'manager', matchId: 'm1', side: half })).toThrow(/not found/);
    }
    const manual = (by: string, role: 'admin' | 'user') =>
      s.run({ type: 'CreateManualMatch', companyId: 'c', by, role, receiptId: 'r2', transactionId: 't2', confidence: 0, evidence, side: half, newId: s.newId });
    expect(() => manual('bob', 'user')).toThrow(/not found/);
    expect(() => manual('alice', 'user')).toThrow(/not found/);
    expect(manual('admin', 'admin').map((e) => e.type)).toEqual(['MatchesSuggested', 'MatchConfirmed']);
  });

  it('drops the matches of a deleted receipt: pending ones withdrawn, confirmed ones deleted', () => {
    const s = stream();
    s.run({ type: 'ApplyAutoMatch', companyId: 'c', by: 'system', threshold: 60, origin: 'find', newId: s.newId, scope: 'proposals-only',
      proposals: [{ receiptId: 'r1', transactionId: 't1', confidence: 80, evidence }, { receiptId: 'r1', transactionId: 't2', confidence: 70, evidence }] });
    s.act('ConfirmMatch', 'm1');
    s.auto([['r2', 't2']]);
    const out = s.run({ type: 'ForgetReceipt', companyId: 'c', by: 'admin', receiptId: 'r1', receiptName: 'r.jpg' });
    expect(out.map((e) => e.type)).toEqual(['MatchDeleted']);
    expect(s.state().confirmedReceipt.size).toBe(0);
    expect(s.state().pending.has('r2|t2')).toBe(true);
  });
});
