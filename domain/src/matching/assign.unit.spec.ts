import { describe, expect, it } from 'vitest';
import { autoMatch } from './assign';
import { maxWeightAssignment } from './hungarian';
import { isoOfDay } from './blocking';
import { dayNumber, scoreMatch } from './score';
import type { ReceiptInput, TransactionInput } from './score';

const receipt = (id: string, totalCents: number, date: string, merchant = 'KEDAI PAPAN YEW CHUAN'): ReceiptInput => ({ id, totalCents, date, merchant });
const line = (id: string, amountCents: number, date: string, description = 'SQ *KEDAI PAPAN YEW CH'): TransactionInput => ({ id, amountCents, date, description });
const pairs = (proposals: ReturnType<typeof autoMatch>) => proposals.map((p) => [p.receiptId, p.transactionId]);

/** Invented shops and how a card prints them, for the random rounds below. */
const SHOPS = ['KEDAI PAPAN YEW CHUAN', 'PAPPARICH BMC', 'CHEF LEE SDN BHD', 'YAM FRESH'];
const DESCRIPTORS = ['SQ *KEDAI PAPAN YEW CH', 'PAPPARICH BMC SHAH ALAM', 'SQ *CHEF LEE', 'YAM FRESH JOHOR BAHRU'];

/** A seeded generator in [0, 1), the same numbers every run. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** The best total confidence of a one-to-one assignment, by exhaustive search (weights of 0 are no pair). */
function bestTotal(w: number[][], columns: number): number {
  const best = (i: number, used: number): number => {
    if (i === w.length) return 0;
    let top = best(i + 1, used);
    for (let j = 0; j < columns; j++) {
      const c = w[i]?.[j] ?? 0;
      if (c > 0 && !(used & (1 << j))) top = Math.max(top, c + best(i + 1, used | (1 << j)));
    }
    return top;
  };
  return best(0, 0);
}

describe('autoMatch', () => {
  it('proposes each receipt its card line, with confidence and evidence', () => {
    const receipts = [receipt('r1', 6890, '2024-05-11'), receipt('r2', 8745, '2024-04-20', 'AMTECH ELECTRICAL SUPPLIES')];
    const lines = [
      line('t1', -8745, '2024-04-21', 'AMTECH ELECTRICAL SUPP KUALA LUMPUR'),
      line('t2', -6890, '2024-05-11'),
      line('t3', -6890, '2024-05-19', 'GIANT HYPERMARKET'),
    ];
    const proposals = autoMatch(receipts, lines, { threshold: 75 });
    expect(pairs(proposals)).toEqual([['r1', 't2'], ['r2', 't1']]);
    expect(proposals[0]?.confidence).toBeGreaterThanOrEqual(95);
    expect(proposals[0]?.evidence.amountKind).toBe('exact');
  });

  it('keeps only pairs at or above the threshold (default 75)', () => {
    const receipts = [receipt('r1', 5000, '2024-05-01', 'CHEF LEE SDN BHD')];
    const lines = [line('t1', -5100, '2024-05-04', 'SQ *CHEF LEE')];
    const fx = scoreMatch(receipts[0]!, lines[0]!)!.confidence;
    expect(fx).toBeGreaterThanOrEqual(75);
    expect(autoMatch(receipts, lines)).toHaveLength(1);
    expect(autoMatch(receipts, lines, { threshold: fx + 1 })).toEqual([]);
  });

  it('never matches a refund or credit, even at the same amount', () => {
    const receipts = [receipt('r1', 6030, '2024-10-19', 'INDAH GIFT & HOME DECO')];
    const lines = [line('t1', 6030, '2024-10-20', 'INDAH GIFT & HOME DECO #8487'), line('t2', 1250, '2024-10-20', 'REFUND INDAH GIFT & HOME DECO #8487')];
    expect(autoMatch(receipts, lines, { threshold: 0 })).toEqual([]);
  });

  it('assigns one to one, maximising the total confidence where greedy would not', () => {
    // Greedy takes r1-t1 (the best single pair) and leaves r2 with nothing; the optimum gives
    // r1 its second choice (a foreign-card fee line) and r2 the line only it can have.
    const receipts = [receipt('r1', 5000, '2024-05-01'), receipt('r2', 5000, '2024-05-02', 'KEDAI PAPN YEW CHUAN')];
    const lines = [line('t1', -5000, '2024-05-02'), line('t2', -5100, '2024-05-01')];
    const r1t1 = scoreMatch(receipts[0]!, lines[0]!)!.confidence;
    const r2t1 = scoreMatch(receipts[1]!, lines[0]!)!.confidence;
    const r1t2 = scoreMatch(receipts[0]!, lines[1]!)!.confidence;
    const r2t2 = scoreMatch(receipts[1]!, lines[1]!)!.confidence;
    expect(r1t1).toBeGreaterThan(r2t1);
    expect(r2t2).toBeLessThan(75);
    const proposals = autoMatch(receipts, lines, { threshold: 75 });
    expect(pairs(proposals)).toEqual([['r1', 't2'], ['r2', 't1']]);
    expect(proposals.reduce((s, p) => s + p.confidence, 0)).toBe(r1t2 + r2t1);
  });

  it('breaks confidence ties by the smaller day gap, then by id', () => {
    const r = [receipt('r1', 2500, '2024-05-01')];
    // Same day and next day both score the maximum; the same day wins although its id is larger.
    expect(pairs(autoMatch(r, [line('t-a', -2500, '2024-05-02'), line('t-b', -2500, '2024-05-01')]))).toEqual([['r1', 't-b']]);
    // Identical lines: the smaller id wins, whatever the input order.
    const twins = [line('t-y', -2500, '2024-05-01'), line('t-x', -2500, '2024-05-01')];
    expect(pairs(autoMatch(r, twins))).toEqual([['r1', 't-x']]);
    expect(pairs(autoMatch(r, [...twins].reverse()))).toEqual([['r1', 't-x']]);
    // Two receipts for one line: the one dated closer to the line wins, then the smaller id.
    const rs = [receipt('r-b', 2500, '2024-05-01'), receipt('r-a', 2500, '2024-05-01'), receipt('r-c', 2500, '2024-04-30')];
    expect(pairs(autoMatch(rs, [line('t1', -2500, '2024-05-01')]))).toEqual([['r-a', 't1']]);
  });

  it('gives the same proposals whatever the input order', () => {
    const receipts = Array.from({ length: 12 }, (_, k) => receipt(`r${k}`, 2000 + (k % 3) * 10, `2024-05-0${1 + (k % 4)}`));
    const lines = Array.from({ length: 15 }, (_, k) => line(`t${k}`, -(2000 + (k % 3) * 10), `2024-05-0${1 + (k % 5)}`));
    const once = autoMatch(receipts, lines);
    expect(autoMatch([...receipts].reverse(), [...lines].reverse())).toEqual(once);
    expect(new Set(once.map((p) => p.transactionId)).size).toBe(once.length);
  });

  it('never proposes a rejected pair, and the rejected line stays free for others', () => {
    const receipts = [receipt('r1', 3000, '2024-06-01'), receipt('r2', 3000, '2024-06-02')];
    const lines = [line('t1', -3000, '2024-06-02'), line('t2', -3000, '2024-06-03')];
    const before = autoMatch(receipts, lines);
    expect(before).toHaveLength(2);
    const [first] = before;
    const after = autoMatch(receipts, lines, { rejected: [[first!.receiptId, first!.transactionId]] });
    expect(after.some((p) => p.receiptId === first!.receiptId && p.transactionId === first!.transactionId)).toBe(false);
    expect(after.some((p) => p.transactionId === first!.transactionId)).toBe(true);
    expect(autoMatch([receipts[0]!], [lines[0]!], { rejected: [['r1', 't1']] })).toEqual([]);
  });

  it('leaves out confirmed receipts and lines, and a re-run keeps the other proposals', () => {
    const receipts = [receipt('r1', 4100, '2024-07-01'), receipt('r2', 990, '2024-07-03', 'YAM FRESH'), receipt('r3', 4100, '2024-07-01')];
    const lines = [line('t1', -4100, '2024-07-02'), line('t2', -990, '2024-07-03', 'YAM FRESH JOHOR BAHRU'), line('t3', -4100, '2024-07-04')];
    const first = autoMatch(receipts, lines);
    expect(first).toHaveLength(3);
    const chosen = first.find((p) => p.receiptId === 'r1')!;
    const rerun = autoMatch(receipts, lines, { confirmed: [[chosen.receiptId, chosen.transactionId]] });
    expect(rerun.some((p) => p.receiptId === 'r1' || p.transactionId === chosen.transactionId)).toBe(false);
    expect(rerun.find((p) => p.receiptId === 'r2')).toEqual(first.find((p) => p.receiptId === 'r2'));
    expect(rerun.find((p) => p.receiptId === 'r3')?.transactionId).not.toBe(chosen.transactionId);
    // A confirmed line is never handed to the twin receipt that would otherwise take it.
    const onlyLine = autoMatch([receipts[2]!], [lines[0]!], { confirmed: [['r1', 't1']] });
    expect(onlyLine).toEqual([]);
  });

  it('copes with receipts missing fields (proposed only when still convincing)', () => {
    const receipts: ReceiptInput[] = [
      { id: 'no-merchant', totalCents: 1234, date: '2024-08-01', merchant: null },
      { id: 'no-date', totalCents: 5678, date: null, merchant: 'PROSPER NIAGA' },
      { id: 'no-total', totalCents: null, date: '2024-08-01', merchant: 'PROSPER NIAGA' },
      { id: 'nothing', totalCents: null, date: null, merchant: null },
    ];
    const lines = [line('t1', -1234, '2024-08-01', 'SOMEWHERE'), line('t2', -5678, '2024-08-02', 'PROSPER NIAGA'), line('t3', -999, '2024-08-01', 'PROSPER NIAGA')];
    expect(autoMatch(receipts, lines)).toEqual([]);
    const low = autoMatch(receipts, lines, { threshold: 50 });
    expect(pairs(low)).toEqual([['no-date', 't2'], ['no-merchant', 't1'], ['no-total', 't3']]);
  });

  it('finds the optimal assignment found by exhaustive search (blocking loses nothing)', () => {
    const rand = seeded(7);
    for (let round = 0; round < 40; round++) {
      const receipts = Array.from({ length: 5 }, (_, k) => {
        const shop = Math.floor(rand() * SHOPS.length);
        return receipt(`r${k}`, 1000 + Math.floor(rand() * 4) * 10, `2024-09-0${1 + Math.floor(rand() * 4)}`, SHOPS[shop]);
      });
      const lines = Array.from({ length: 7 }, (_, k) => {
        const shop = Math.floor(rand() * SHOPS.length);
        const cents = 1000 + Math.floor(rand() * 4) * 10 + (rand() < 0.3 ? 20 : rand() < 0.3 ? 2 : 0);
        return line(`t${k}`, -cents, `2024-09-0${1 + Math.floor(rand() * 6)}`, DESCRIPTORS[shop]);
      });
      const threshold = 75;
      const w = receipts.map((r) => lines.map((t) => {
        const c = scoreMatch(r, t)?.confidence ?? 0;
        return c >= threshold ? c : 0;
      }));
      const total = autoMatch(receipts, lines, { threshold }).reduce((s, p) => s + p.confidence, 0);
      expect(total).toBe(bestTotal(w, lines.length));
    }
  });

  it('loses nothing to blocking for receipts whose date was read doubtfully (lines up to 60 days after)', () => {
    const rand = seeded(11);
    const base = dayNumber('2024-09-01')!;
    let lifted = 0;
    for (let round = 0; round < 40; round++) {
      const receipts: ReceiptInput[] = Array.from({ length: 5 }, (_, k) => ({
        ...receipt(`r${k}`, 1000 + Math.floor(rand() * 3) * 10, isoOfDay(base + Math.floor(rand() * 30)), SHOPS[Math.floor(rand() * SHOPS.length)]!),
        dateDoubtful: rand() < 0.5,
      }));
      const lines = Array.from({ length: 7 }, (_, k) => {
        const shop = Math.floor(rand() * SHOPS.length);
        const cents = 1000 + Math.floor(rand() * 3) * 10 + (rand() < 0.3 ? 2 : 0);
        return line(`t${k}`, -cents, isoOfDay(base - 5 + Math.floor(rand() * 100)), DESCRIPTORS[shop]!);
      });
      for (const threshold of [70, 72]) {
        const w = receipts.map((r) => lines.map((t) => {
          const c = scoreMatch(r, t)?.confidence ?? 0;
          if (c >= threshold && r.dateDoubtful && scoreMatch({ ...r, dateDoubtful: false }, t)!.confidence < threshold) lifted++;
          return c >= threshold ? c : 0;
        }));
        const total = autoMatch(receipts, lines, { threshold }).reduce((s, p) => s + p.confidence, 0);
        expect(total).toBe(bestTotal(w, lines.length));
      }
    }
    // The rounds hold pairs only the doubtful date brings over the threshold (else the test proves nothing).
    expect(lifted).toBeGreaterThan(5);
  });
});

describe('maxWeightAssignment', () => {
  it('matches exhaustive search on random matrices, rows <= columns', () => {
    let seed = 3;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const rows = 1 + Math.floor(rand() * 5);
      const cols = rows + Math.floor(rand() * 3);
      const m = Array.from({ length: rows }, () => Array.from({ length: cols }, () => (rand() < 0.4 ? 0 : Math.floor(rand() * 100))));
      const best = (i: number, used: number): number => {
        if (i === rows) return 0;
        let top = best(i + 1, used);
        for (let j = 0; j < cols; j++) if (!(used & (1 << j)) && (m[i]?.[j] ?? 0) > 0) top = Math.max(top, (m[i]?.[j] ?? 0) + best(i + 1, used | (1 << j)));
        return top;
      };
      const assignment = maxWeightAssignment(rows, cols, (i, j) => m[i]?.[j] ?? 0);
      const cols_ = assignment.filter((c) => c >= 0);
      expect(new Set(cols_).size).toBe(cols_.length);
      expect(assignment.reduce((s, c, i) => s + (c >= 0 ? m[i]?.[c] ?? 0 : 0), 0)).toBe(best(0, 0));
    }
  });

  it('refuses more rows than columns', () => {
    expect(() => maxWeightAssignment(3, 2, () => 1)).toThrow(RangeError);
  });
});
