import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toCents } from '../core/money';
import { parseBankStatement } from './statement';

const BANK_CSV = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/bank-csv');

interface Truth {
  format: string;
  rows: number;
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}

const DEV_REFUND = { description: 'REFUND INDAH GIFT & HOME DECO #8487', date: '2018-10-20', amountCents: 1250 };
const cases = [
  { file: 'spec', layout: 'paperlink', refund: DEV_REFUND },
  { file: 'chase', layout: 'chase-card', refund: DEV_REFUND },
  { file: 'capitalone', layout: 'capital-one', refund: DEV_REFUND },
  // the statement of the 91 training receipts (receipts-train), in the product's layout
  { file: 'train-spec', layout: 'paperlink', refund: { description: 'REFUND GERBANG ALAF RESTAURAN', date: '2018-01-21', amountCents: 1250 } },
];

describe('the shared card statements (receipts dev and train sets)', () => {
  it('covers every CSV in the folder', () => {
    const csvs = readdirSync(BANK_CSV).filter((f) => f.endsWith('.csv')).sort();
    expect(csvs).toEqual(cases.map((c) => `${c.file}.csv`).sort());
  });

  for (const { file, layout, refund } of cases) {
    describe(`${file}.csv`, () => {
      const result = parseBankStatement(readFileSync(path.join(BANK_CSV, `${file}.csv`)));
      const truth = JSON.parse(readFileSync(path.join(BANK_CSV, `${file}.truth.json`), 'utf8')) as Truth;
      const lines = Object.entries(truth.receipt_to_transaction).filter(
        (e): e is [string, NonNullable<(typeof e)[1]>] => e[1] !== null,
      );

      it(`is recognised as ${layout} and every line imports`, () => {
        expect(result.layout).toBe(layout);
        expect(result.needsMapping).toBeUndefined();
        expect(result.rowErrors).toEqual([]);
        expect(result.ignoredRows).toEqual([]);
        expect(result.rows).toHaveLength(truth.rows);
      });

      it('holds every line of the truth file exactly (date, signed amount, description)', () => {
        expect(lines.length).toBeGreaterThan(30);
        const imported = new Set(result.rows.map((r) => `${r.date}|${r.amountCents}|${r.description}`));
        const missing = lines
          .map(([, t]) => `${t.date}|${toCents(t.amount)}|${t.description}`)
          .filter((key) => !imported.has(key));
        expect(missing).toEqual([]);
      });

      it('reads the refund as money coming back (positive)', () => {
        const found = result.rows.find((r) => r.description === refund.description);
        expect(found).toMatchObject({ date: refund.date, amountCents: refund.amountCents });
        expect(result.rows.filter((r) => r.amountCents > 0)).toHaveLength(1);
      });
    });
  }

  it('reads the member names of the product layout', () => {
    const result = parseBankStatement(readFileSync(path.join(BANK_CSV, 'spec.csv')));
    const names = new Set(result.rows.map((r) => `${r.firstName} ${r.lastName}`));
    expect([...names].sort()).toEqual(['Ana Lopez', 'Ben Okafor', 'Chen Wei', 'Dana Smith']);
  });
});
