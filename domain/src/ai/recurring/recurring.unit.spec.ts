/**
 * The windowed longest chain gives the chain a scan of every earlier item gives (the rule as it
 * was first written, kept here as the reference), on random postings with series, month ends
 * (clamped monthly dates), skipped periods, look-alike amounts and same-day postings.
 */
import { describe, expect, it } from 'vitest';
import { CADENCES, detectRecurringPatterns, longestChain, type Cadence, type Item, type RecurringRecord } from './recurring';

const close = (a: number, b: number, tol: number): boolean => Math.abs(a - b) <= tol * Math.max(a, b);

function referenceChain(items: Item[], cadence: Cadence, tol: number): Item[] {
  const len = new Array<number>(items.length).fill(1);
  const prev = new Array<number>(items.length).fill(-1);
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    for (let j = 0; j < i; j++) {
      const jt = items[j]!;
      const miss = Math.abs(cadence.next(jt.day) - it.day);
      if (miss > cadence.tolerance) {
        const pt = items[prev[j] ?? -1];
        if (miss > 2 * cadence.tolerance || pt === undefined || Math.abs(cadence.next(cadence.next(pt.day)) - it.day) > cadence.tolerance) continue;
      }
      if (!close(jt.abs, it.abs, tol)) continue;
      if (len[j]! + 1 > len[i]!) {
        len[i] = len[j]! + 1;
        prev[i] = j;
      }
    }
  }
  let end = 0;
  for (let i = 1; i < items.length; i++) if (len[i]! > len[end]!) end = i;
  const chain: Item[] = [];
  for (let i = items.length > 0 ? end : -1; i >= 0; i = prev[i] ?? -1) chain.unshift(items[i]!);
  return chain;
}

function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

const DAY = 86_400_000;
const day = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY);
const date = (d: number) => new Date(d * DAY).toISOString().slice(0, 10);

/** A merchant's postings: a few series at cadences (some periods skipped, dates jittered) in noise. */
function postings(rnd: () => number, n: number): Item[] {
  const out: Item[] = [];
  const start = day('2021-01-31');
  for (let s = 0; s < 3; s++) {
    const cadence = CADENCES[Math.floor(rnd() * CADENCES.length)]!;
    const amount = 1000 + Math.floor(rnd() * 5000);
    let d = start + Math.floor(rnd() * 40);
    for (let k = 0; k < 12 && out.length < n; k++) {
      if (rnd() > 0.15) out.push({ r: { id: `s${s}-${k}`, date: date(d), amountCents: -amount, description: 'X' }, day: d + Math.round((rnd() - 0.5) * 6), abs: amount + Math.floor((rnd() - 0.5) * amount * 0.1) });
      d = cadence.next(d);
    }
  }
  while (out.length < n) {
    const d = start + Math.floor(rnd() * 1500);
    const amount = 1000 + Math.floor(rnd() * 5000);
    out.push({ r: { id: `n${out.length}`, date: date(d), amountCents: -amount, description: 'X' }, day: d, abs: amount });
  }
  return out.sort((a, b) => a.day - b.day || a.r.id.localeCompare(b.r.id));
}

describe('longestChain', () => {
  it('is the chain a scan of every earlier posting finds, for every cadence', () => {
    const rnd = random(7);
    for (let trial = 0; trial < 150; trial++) {
      const items = postings(rnd, 5 + Math.floor(rnd() * 120));
      for (const cadence of CADENCES) {
        for (const tol of [0.075, 0.3]) {
          const got = longestChain(items, cadence, tol).map((x) => x.r.id);
          expect(got, `${trial} ${cadence.frequency} ${tol}`).toEqual(referenceChain(items, cadence, tol).map((x) => x.r.id));
        }
      }
    }
  });

  it('goes through 20,000 postings of one merchant at random dates, and finds another merchant\'s monthly series', () => {
    // Not a timing assertion: a scan of every earlier posting is 200 million steps here (minutes
    // with five cadences and five rounds); the windowed scan is what makes this test end at all.
    const rnd = random(11);
    const records: RecurringRecord[] = [];
    for (let i = 0; i < 20_000; i++) records.push({ id: `n${i}`, date: date(day('2021-01-01') + Math.floor(rnd() * 1800)), amountCents: -(500 + Math.floor(rnd() * 90_000)), description: 'HOME DEPOT 4411' });
    for (let k = 0; k < 24; k++) records.push({ id: `rent${k}`, date: date(day('2022-01-15') + Math.round(k * 30.44)), amountCents: -123_456, description: 'CITY RENT LLC' });
    const found = detectRecurringPatterns(records);
    expect(found.find((p) => p.frequency === 'monthly' && p.amountCents === -123_456)?.occurrenceCount).toBe(24);
  });
});
