import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTO_MATCH_THRESHOLD } from './assign';
import { dateFactor, merchantFactor } from './factors';
import { dayNumber, scoreMatch } from './score';
import type { MatchScore, ReceiptInput, TransactionInput } from './score';

const receipt = (over: Partial<ReceiptInput> = {}): ReceiptInput => ({
  id: 'r1', totalCents: 4530, date: '2024-03-10', merchant: 'PAPPARICH BMC SDN BHD', ...over,
});
const line = (over: Partial<TransactionInput> = {}): TransactionInput => ({
  id: 't1', amountCents: -4530, date: '2024-03-11', description: 'SQ *PAPPARICH BMC SHAH ALAM', ...over,
});
const score = (r: Partial<ReceiptInput> = {}, t: Partial<TransactionInput> = {}): MatchScore => {
  const s = scoreMatch(receipt(r), line(t));
  if (s === null) throw new Error('expected a score');
  return s;
};

describe('scoreMatch: amount', () => {
  it('exact cents score best', () => {
    const s = score();
    expect(s.evidence.amountKind).toBe('exact');
    expect(s.evidence.amountDiffCents).toBe(0);
    expect(s.evidence.amountRatio).toBe(1);
    expect(s.confidence).toBeGreaterThanOrEqual(95);
  });

  it('a few cents either way are rounding, a little below exact', () => {
    const up = score({}, { amountCents: -4532 });
    const down = score({}, { amountCents: -4528 });
    expect(up.evidence.amountKind).toBe('rounding');
    expect(up.evidence.amountDiffCents).toBe(2);
    expect(down.evidence.amountDiffCents).toBe(-2);
    expect(up.confidence).toBeLessThan(score().confidence);
    expect(up.confidence).toBeGreaterThanOrEqual(90);
  });

  it('1-3 % more on the card is a foreign-card fee: matched, with less confidence than exact', () => {
    const s = score({}, { amountCents: -4620 });
    expect(s.evidence.amountKind).toBe('fx_fee');
    expect(s.evidence.amountRatio).toBeCloseTo(1.0199, 4);
    expect(s.confidence).toBeGreaterThanOrEqual(80);
    expect(s.confidence).toBeLessThan(90);
    expect(s.evidence.reasons[0]).toMatch(/foreign-card fee/);
  });

  it('a fee of tens of currency units (a second purchase more often than a fee) is only suggested', () => {
    const small = score({ totalCents: 9620 }, { amountCents: -9720 });
    const large = score({ totalCents: 100750 }, { amountCents: -103065 });
    expect(small.evidence.amountKind).toBe('fx_fee');
    expect(large.evidence.amountKind).toBe('fx_fee');
    expect(small.confidence).toBeGreaterThanOrEqual(80);
    expect(large.confidence).toBeLessThan(75);
    expect(scoreMatch(receipt({ totalCents: 100750 }), line({ amountCents: -103065 }), { fxFeeMaxCents: 5000 })!.confidence).toBeGreaterThanOrEqual(80);
  });

  it('10-25 % more at a restaurant with a matching name is a tip, suggested below 70', () => {
    const s = score({ merchant: 'RESTORAN WAN SHENG', totalCents: 10000 }, { description: 'RESTORAN WAN SHENG JOHOR BAHRU', amountCents: -11800 });
    expect(s.evidence.amountKind).toBe('tip');
    expect(s.confidence).toBeGreaterThanOrEqual(60);
    expect(s.confidence).toBeLessThan(70);
  });

  it('a tip needs a good merchant match, else it is another amount', () => {
    const s = score({ merchant: 'RESTORAN WAN SHENG', totalCents: 10000 }, { description: 'MAXIS BILL', amountCents: -11800 });
    expect(s.evidence.amountKind).toBe('mismatch');
    expect(s.evidence.reasons[0]).toMatch(/too different to read it as a tip/);
    expect(s.confidence).toBeLessThan(30);
  });

  it('the same merchant at another amount scores below 70', () => {
    for (const cents of [-2100, -5190, -7310, -4000, -12000]) {
      const s = score({}, { amountCents: cents, date: '2024-03-10' });
      expect(s.confidence).toBeLessThan(70);
    }
    expect(score({}, { amountCents: -7310 }).evidence.amountKind).toBe('mismatch');
  });
});

describe('scoreMatch: date', () => {
  it('posting 0-3 days after the receipt with the exact amount and a plausible merchant scores >= 85', () => {
    for (const date of ['2024-03-10', '2024-03-11', '2024-03-12', '2024-03-13']) {
      expect(score({}, { date }).confidence).toBeGreaterThanOrEqual(85);
    }
    expect(score({ merchant: 'PAPPA RICH' }, { date: '2024-03-13' }).confidence).toBeGreaterThanOrEqual(85);
  });

  it('confidence falls with the day gap and fades out after five days', () => {
    const byGap = [0, 2, 4, 5, 6, 8, 12].map((g) => score({}, { date: `2024-03-${String(10 + g).padStart(2, '0')}` }).confidence);
    for (let k = 1; k < byGap.length; k++) expect(byGap[k]).toBeLessThanOrEqual(byGap[k - 1] ?? 100);
    expect(byGap[3]).toBeGreaterThanOrEqual(80);
    expect(byGap[6]).toBeLessThan(40);
    expect(score({}, { date: '2024-03-13' }).evidence.daysBetween).toBe(3);
  });

  it('a line dated before the receipt is heavily penalised', () => {
    const before = score({}, { date: '2024-03-08' });
    expect(before.evidence.daysBetween).toBe(-2);
    expect(before.confidence).toBeLessThan(30);
    expect(before.evidence.reasons[1]).toMatch(/before the receipt/);
    expect(score({}, { date: '2024-03-09' }).confidence).toBeLessThan(60);
  });

  it('the same amount at another merchant in another week scores below 70', () => {
    for (const date of ['2024-03-17', '2024-03-20', '2024-03-03']) {
      expect(score({}, { description: 'GIANT HYPERMARKET', date }).confidence).toBeLessThan(70);
    }
    expect(score({}, { description: 'GIANT HYPERMARKET', date: '2024-03-17' }).confidence).toBeLessThan(40);
  });
});

describe('scoreMatch: merchant', () => {
  it('the exact amount on the right day at an unrelated merchant is only a suggestion', () => {
    const s = score({}, { description: 'MAXIS BILL' });
    expect(s.confidence).toBeGreaterThanOrEqual(50);
    expect(s.confidence).toBeLessThan(70);
    expect(s.evidence.merchantSimilarity).toBeLessThan(0.3);
  });

  it('reports the similarity and a reason', () => {
    const s = score();
    expect(s.evidence.merchantSimilarity).toBeGreaterThan(0.95);
    expect(s.evidence.reasons).toEqual(['amount equal (45.30)', 'posted 1 day after the receipt', expect.stringMatching(/^merchant matches \(0\.9\d\)$/)]);
    expect(score({}, { description: 'PAPPARICH BMC' }).evidence.merchantSimilarity).toBe(1);
  });
});

describe('scoreMatch: card holder', () => {
  it('is unknown unless both sides say who', () => {
    expect(score().evidence.uploaderIsCardHolder).toBeNull();
    expect(score({ uploadedBy: 'Dana Smith' }).evidence.uploaderIsCardHolder).toBeNull();
  });

  it('compares names loosely and nudges the confidence', () => {
    const same = score({ uploadedBy: 'dana  smith' }, { cardHolder: 'DANA SMITH', date: '2024-03-14' });
    const other = score({ uploadedBy: 'Ben Okafor' }, { cardHolder: 'Dana Smith', date: '2024-03-14' });
    const unknown = score({}, { date: '2024-03-14' });
    expect(same.evidence.uploaderIsCardHolder).toBe(true);
    expect(other.evidence.uploaderIsCardHolder).toBe(false);
    expect(same.confidence).toBeGreaterThan(unknown.confidence);
    expect(other.confidence).toBeLessThan(unknown.confidence);
  });
});

describe('scoreMatch: what cannot match', () => {
  it('a refund or credit never matches an expense', () => {
    expect(scoreMatch(receipt(), line({ amountCents: 4530 }))).toBeNull();
    expect(scoreMatch(receipt(), line({ amountCents: 0 }))).toBeNull();
  });

  it('a receipt total of zero or below, or an unreadable line date, cannot match', () => {
    expect(scoreMatch(receipt({ totalCents: 0 }), line())).toBeNull();
    expect(scoreMatch(receipt({ totalCents: -4530 }), line())).toBeNull();
    expect(scoreMatch(receipt(), line({ date: '11/03/2024' }))).toBeNull();
  });

  it('a receipt with nothing readable cannot match', () => {
    expect(scoreMatch(receipt({ totalCents: null, date: null, merchant: null }), line())).toBeNull();
  });
});

describe('scoreMatch: missing receipt fields lower the confidence without failing', () => {
  const full = score().confidence;

  it('no merchant', () => {
    const s = score({ merchant: null });
    expect(s.evidence.merchantSimilarity).toBeNull();
    expect(s.evidence.reasons).toContain('receipt has no merchant');
    expect(s.confidence).toBeLessThan(75);
    expect(s.confidence).toBeGreaterThan(60);
    expect(score({ merchant: '   ' }).evidence.merchantSimilarity).toBeNull();
  });

  it('no date (or an unreadable one)', () => {
    const s = score({ date: null });
    expect(s.evidence.daysBetween).toBeNull();
    expect(s.confidence).toBeLessThan(75);
    expect(s.confidence).toBeGreaterThan(60);
    expect(score({ date: '2024-02-30' }).evidence.daysBetween).toBeNull();
  });

  it('no total', () => {
    const s = score({ totalCents: null });
    expect(s.evidence.amountKind).toBe('unknown');
    expect(s.evidence.amountDiffCents).toBeNull();
    expect(s.evidence.amountRatio).toBeNull();
    expect(s.confidence).toBeLessThanOrEqual(60);
  });

  it('each costs confidence', () => {
    for (const over of [{ merchant: null }, { date: null }, { totalCents: null }]) expect(score(over).confidence).toBeLessThan(full);
  });
});

describe('factors', () => {
  it('date factor is unimodal with its top on the day and the day after', () => {
    expect(dateFactor(0, 5)).toBe(1);
    expect(dateFactor(1, 5)).toBe(1);
    expect(dateFactor(-1, 5)).toBeLessThan(dateFactor(5, 5));
    expect(dateFactor(6, 5)).toBeLessThan(dateFactor(5, 5));
  });

  it('merchant factor grows with similarity and never reaches 0', () => {
    expect(merchantFactor(0)).toBeGreaterThan(0.5);
    expect(merchantFactor(0.5)).toBeLessThan(merchantFactor(0.7));
    expect(merchantFactor(1)).toBe(1);
  });

  it('dayNumber reads ISO dates and rejects the rest', () => {
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(dayNumber('2024-03-01')! - dayNumber('2024-02-28')!).toBe(2);
    expect(dayNumber('2023-02-29')).toBeNull();
    expect(dayNumber('2024-13-01')).toBeNull();
    expect(dayNumber(null)).toBeNull();
  });
});

describe('scoreMatch: a merchant read doubtfully', () => {
  // An invented purchase: the card line names the shop, the receipt's name came out garbled.
  const line = { id: 't', amountCents: -4250, date: '2024-05-03', description: 'CORNER HARDWARE 0042 SPRINGFIELD', cardHolder: 'u1' };
  const receipt = (merchant: string | null, merchantDoubtful?: boolean) => ({ id: 'r', totalCents: 4250, date: '2024-05-03', merchant, uploadedBy: 'u1', ...(merchantDoubtful === undefined ? {} : { merchantDoubtful }) });

  it('that differs from the line counts as no merchant, not against the pair', () => {
    const none = scoreMatch(receipt(null), line)!;
    const sure = scoreMatch(receipt('OEN TR4DING'), line)!;
    const doubtful = scoreMatch(receipt('OEN TR4DING', true), line)!;
    expect(sure.confidence).toBeLessThan(none.confidence);
    expect(doubtful.confidence).toBe(none.confidence);
    expect(doubtful.confidence).toBeGreaterThanOrEqual(70);
    expect(doubtful.evidence.reasons.join('; ')).toContain('read doubtfully: not counted against');
    expect(sure.evidence.reasons.join('; ')).not.toContain('doubtfully');
  });

  it('that matches the line still counts as a match', () => {
    const sure = scoreMatch(receipt('Corner Hardware'), line)!;
    const doubtful = scoreMatch(receipt('Corner Hardware', true), line)!;
    expect(doubtful.confidence).toBe(sure.confidence);
    expect(doubtful.confidence).toBeGreaterThan(scoreMatch(receipt(null), line)!.confidence);
  });

  it('never lifts a pair whose amount or date disagree', () => {
    const far = { ...line, amountCents: -9999, date: '2024-06-20' };
    expect(scoreMatch(receipt('OEN TR4DING', true), far)?.confidence ?? 0).toBeLessThan(70);
  });
});

describe('scoreMatch: a date read doubtfully', () => {
  // An invented purchase: the card line posts ten days after the date read, whose day digit OCR slipped on.
  const line = { id: 't', amountCents: -6890, date: '2024-05-11', description: 'CORNER HARDWARE 0042 SPRINGFIELD', cardHolder: 'u1' };
  const receipt = (date: string | null, dateDoubtful?: boolean) => ({ id: 'r', totalCents: 6890, date, merchant: 'Corner Hardware', uploadedBy: 'u1', ...(dateDoubtful === undefined ? {} : { dateDoubtful }) });

  it('that differs from the line (within the days searched) counts as no date, not against the pair', () => {
    const none = scoreMatch(receipt(null), line)!;
    const sure = scoreMatch(receipt('2024-05-01'), line)!;
    const doubtful = scoreMatch(receipt('2024-05-01', true), line)!;
    expect(sure.confidence).toBeLessThan(70);
    expect(doubtful.confidence).toBe(none.confidence);
    expect(doubtful.confidence).toBeGreaterThanOrEqual(70);
    expect(doubtful.confidence).toBeLessThan(DEFAULT_AUTO_MATCH_THRESHOLD);
    expect(doubtful.evidence.daysBetween).toBe(10);
    expect(doubtful.evidence.reasons.join('; ')).toContain('receipt date read doubtfully: not counted against');
    expect(sure.evidence.reasons.join('; ')).not.toContain('doubtfully');
    // Three days before the receipt is still searched; a line dated before that never pays it.
    expect(scoreMatch(receipt('2024-05-14', true), line)!.confidence).toBe(none.confidence);
    expect(scoreMatch(receipt('2024-05-15', true), line)!.confidence).toBeLessThan(10);
  });

  it('that agrees with the line counts as read', () => {
    const sure = scoreMatch(receipt('2024-05-10'), line)!;
    const doubtful = scoreMatch(receipt('2024-05-10', true), line)!;
    expect(doubtful.confidence).toBe(sure.confidence);
    expect(doubtful.confidence).toBeGreaterThan(scoreMatch(receipt(null), line)!.confidence);
    expect(doubtful.evidence.reasons.join('; ')).not.toContain('doubtfully');
  });

  it('is not lifted beyond the days searched, nor when the amount or merchant disagree', () => {
    expect(scoreMatch(receipt('2019-05-11', true), line)!.confidence).toBeLessThan(10);
    expect(scoreMatch(receipt('2024-03-01', true), line)!.confidence).toBeLessThan(10);
    expect(scoreMatch({ ...receipt('2024-05-01', true), totalCents: 9999 }, line)!.confidence).toBeLessThan(70);
    expect(scoreMatch({ ...receipt('2024-05-01', true), merchant: 'Harbour Fish Market' }, line)!.confidence).toBeLessThan(70);
  });
});
