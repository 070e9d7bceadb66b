/**
 * Fitting the ranker and its calibration, and the simulated total slips trained on, on data
 * invented here (no dataset receipt is copied).
 */
import { describe, expect, it } from 'vitest';
import { buildCandidates } from '../../domain/src/receipts/learned/candidates';
import { layoutFromText } from '../../domain/src/receipts/learned/layout';
import { confidence, rank } from '../../domain/src/receipts/learned/ranker';
import { slipTotal } from './augment';
import { fitCalibration, trainRanker } from './fit';
import { crossValidate, prepare } from './train';

const r = (lines: string[]): string => lines.join('\n');

const ROUNDING = r([
  'KEDAI RUNCIT MAJU JAYA SDN BHD',
  '(1234567-X)',
  'NO 8, JALAN MAWAR 2, TAMAN SERI',
  '81200 JOHOR BAHRU',
  'TAX INVOICE',
  'Date: 23/06/2018 18:02',
  'BERAS 5KG        1 x 17.90   17.90',
  'MINYAK 1KG       1 x  6.07    6.07',
  'Sub Total                    23.97',
  'Rounding Adj                 -0.02',
  'Total                        23.95',
  'Cash                         50.00',
  'Change                       26.05',
]);

const SERVICE = r([
  'RESTORAN SELERA KAMPUNG',
  'LOT 3, JALAN DAMAI, 43000 KAJANG',
  'Date 02-11-2019  Time 13:15',
  '2 NASI LEMAK AYAM     30.00',
  '2 TEH TARIK            8.00',
  '1 IKAN BAKAR          42.00',
  'Sub Total             80.00',
  'Service Charge 10%     8.00',
  'SST 6%                 5.28',
  'Rounding               0.02',
  'Grand Total           93.30',
  'Card                  93.30',
]);

describe('ranker and calibration', () => {
  it('learns to prefer the candidate with the right feature and is deterministic', () => {
    const groups = Array.from({ length: 20 }, (_, i) => ({
      features: [{ label: 1, noise: i % 3 }, { label: 0, noise: (i + 1) % 3 }, { label: 0, noise: (i + 2) % 3 }],
      right: [true, false, false],
    }));
    const w = trainRanker(groups);
    expect(w.label).toBeGreaterThan(0.5);
    expect(trainRanker(groups)).toEqual(w);
    const best = rank(w, [{ value: 'a', line: 0, features: { label: 0 } }, { value: 'b', line: 1, features: { label: 1 } }]);
    expect(best?.value).toBe('b');
  });

  it('fits a confidence that rises with the winner probability', () => {
    const points = Array.from({ length: 40 }, (_, i) => ({ p: 0.3 + (i % 10) * 0.07, margin: 0.1, rule: 0, right: i % 10 >= 4 }));
    const cal = fitCalibration(points);
    expect(confidence(cal, { p: 0.95, margin: 0.1, rule: 0 })).toBeGreaterThan(confidence(cal, { p: 0.4, margin: 0.1, rule: 0 }));
  });
});

describe('simulated total slips (augment.ts)', () => {
  const layout = layoutFromText(ROUNDING);

  it('drops the printed total, leaving the arithmetic to give it', () => {
    const lost = slipTotal(layout, 2395, 'lost')!;
    expect(lost.lines.map((l) => l.text)).toContain('Total');
    expect(lost.lines.map((l) => l.text)).not.toContain('Total                        23.95');
    const derived = buildCandidates(lost, null).total.find((c) => c.value === 2395)!;
    expect(derived.features.derived).toBe(1);
    expect(derived.features.totalLost).toBe(1);
  });

  it('misreads the printed total by its first digit', () => {
    const misread = slipTotal(layout, 2395, 'misread')!;
    const amounts = buildCandidates(misread, null).total.map((c) => c.value);
    expect(amounts).toContain(395);
    expect(amounts.filter((v) => v === 2395)).toHaveLength(1); // now only the derived one
    expect(slipTotal(layoutFromText(r(['SHOP', 'TOTAL 6.50'])), 650, 'misread')!.lines[1]!.text).toBe('TOTAL 8.50');
    // No total line with that amount: nothing to slip.
    expect(slipTotal(layout, 1234, 'lost')).toBeNull();
  });

  it('is trained on but never tested: cross-validation predicts only real readings', () => {
    const label = { merchant: 'KEDAI RUNCIT MAJU JAYA SDN BHD', date: '2018-06-23', total: 23.95 };
    const other = { merchant: 'RESTORAN SELERA KAMPUNG', date: '2019-11-02', total: 93.3 };
    const examples = [
      prepare({ id: 'a', label, layout }),
      prepare({ id: 'a:lost', label, layout: slipTotal(layout, 2395, 'lost')!, trainOnly: true, fields: ['total'] }),
      prepare({ id: 'b', label: other, layout: layoutFromText(SERVICE) }),
    ];
    const cv = crossValidate(examples, 2);
    expect(cv.oof.map((o) => o.id).sort()).toEqual(['a', 'b']);
    expect(cv.models).toHaveLength(2);
  });
});

