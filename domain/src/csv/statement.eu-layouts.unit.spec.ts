import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parseBankStatement } from './statement';
import type { StatementParseResult } from './types';

const readFixture = (name: string): Buffer => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));
const parseFixture = (name: string): StatementParseResult => parseBankStatement(readFixture(name));

type Line = [number, string, number, string];
const lines = (r: StatementParseResult): Line[] => r.rows.map((x) => [x.row, x.date, x.amountCents, x.description]);

describe('UK and European layouts', () => {
  it('Barclays: day-first dates decided by the unambiguous ones; padded memo kept as printed', () => {
    const r = parseFixture('barclays.csv');
    expect(r.layout).toBe('barclays');
    expect(r.dateOrder).toBe('dmy');
    expect(lines(r)).toEqual([
      [2, '2024-01-15', -450, 'PRET A MANGER    ON 14 JAN          BCC'],
      [3, '2024-01-05', -2399, 'AMAZON.CO.UK MKTPLAC ON 04 JAN BCC'],
      [4, '2024-01-03', 185000, 'ACME LTD SALARY'],
      [5, '2024-01-02', -65000, 'CHEQUE 000123'],
      [6, '2023-12-28', -1230, 'TESCO STORES 3297 ON 27 DEC BCC'],
      [7, '2023-12-27', 1500, 'ASOS.COM REFUND'],
    ]);
  });

  it('Barclays with only ambiguous dates falls back to the layout convention (day-first)', () => {
    const r = parseFixture('barclays-ambiguous.csv');
    expect(r.dateOrder).toBe('dmy');
    expect(r.rows.map((x) => x.date)).toEqual(['2024-02-01', '2024-04-03', '2023-12-11']);
  });

  it('Revolut: timestamps, currency column, fee charged on top, reverted payment set aside', () => {
    const r = parseFixture('revolut.csv');
    expect(r.layout).toBe('revolut');
    expect(lines(r)).toEqual([
      [2, '2024-01-05', -480, 'Cafe Central'],
      [3, '2024-01-06', 50000, 'Top-Up by *1234'],
      [4, '2024-01-07', -20100, 'Cash at Sparkasse'],
      [6, '2024-01-09', -2345, 'Lidl'],
      [7, '2024-01-10', 3995, 'Zara'],
      [8, '2024-01-11', -10000, 'Exchanged to GBP'],
    ]);
    expect(new Set(r.rows.map((x) => x.currency))).toEqual(new Set(['EUR']));
    expect(r.ignoredRows).toEqual([{ row: 5, reason: 'reverted payment, not a transaction' }]);
  });

  it('Monzo: Name is the merchant, Transaction ID the external id, day-first dates', () => {
    const r = parseFixture('monzo.csv');
    expect(r.layout).toBe('monzo');
    expect(lines(r)).toEqual([
      [2, '2024-01-02', -395, 'Pret A Manger'],
      [3, '2024-01-13', 210000, 'Acme Ltd'],
      [4, '2024-01-14', -864, 'Café de Flore'],
      [5, '2024-01-15', -8500, 'Octopus Energy'],
      [6, '2024-01-16', 1299, 'Amazon'],
    ]);
    expect(r.rows[2]).toMatchObject({ externalId: 'tx_0000AbCdEf3', currency: 'GBP', category: 'Eating out' });
    expect(r.rows.every((x) => x.fullName === undefined)).toBe(true);
  });

  it('German export: semicolons, quoted cells, dd.mm.yy, 1.234,56 and a trailing minus', () => {
    const r = parseFixture('european-de.csv');
    expect(r.layout).toBe('european');
    expect(r.delimiter).toBe(';');
    expect(r.decimalMark).toBe(',');
    expect(lines(r)).toEqual([
      [2, '2024-01-05', -4567, 'REWE Markt GmbH'],
      [3, '2024-01-15', 325000, 'ACME GmbH'],
      [4, '2024-01-20', -123456, 'Hausverwaltung Müller'],
      [5, '2024-02-02', -1240, 'Café Einstein'],
      [6, '2024-02-03', 2995, 'Zalando SE'],
    ]);
    expect(r.rows.every((x) => x.currency === 'EUR')).toBe(true);
  });

  it('French export: Excel sep=; line, space thousands, ambiguous dates day-first', () => {
    const r = parseFixture('european-fr.csv');
    expect(r.layout).toBe('european');
    expect(lines(r)).toEqual([
      [3, '2024-01-03', -2345, 'CB CARREFOUR CITY PARIS 15'],
      [4, '2024-01-04', -123456, 'PRLV SEPA EDF'],
      [5, '2024-01-05', 250000, 'VIR SALAIRE JANVIER'],
      [6, '2024-01-06', 1999, 'CB FNAC.COM REMB.'],
    ]);
  });
});

describe('encodings', () => {
  it('Excel "Unicode Text": UTF-16 LE with BOM, tab separated, parenthesised dollar amounts', () => {
    const r = parseFixture('excel-unicode-text.csv');
    expect(r).toMatchObject({ layout: 'paperlink', encoding: 'utf-16le', delimiter: '\t' });
    expect(r.rows).toEqual([
      { row: 2, date: '2024-01-15', description: 'Café Nero', amountCents: -450, currency: 'USD', category: 'Meals', jobNumber: 'J-1001', costCode: '01-3114', firstName: 'José', lastName: 'Núñez' },
      { row: 3, date: '2024-01-16', description: 'Home Depot #4521', amountCents: -123456, currency: 'USD', category: 'Materials', jobNumber: 'J-1001', costCode: '02-2000', firstName: 'Dana', lastName: 'Smith' },
      { row: 4, date: '2024-01-17', description: 'Refund – Home Depot #4521', amountCents: 2000, currency: 'USD', category: 'Materials', jobNumber: 'J-1001', costCode: '02-2000', firstName: 'Dana', lastName: 'Smith' },
      { row: 5, date: '2024-01-18', description: 'Shell, Route 9', amountCents: -5210, currency: 'USD', category: 'Fuel', jobNumber: 'J-1002', firstName: 'Ana', lastName: 'Lopez' },
    ]);
  });

  it('UTF-16 BE with BOM reads the same', () => {
    const le = readFixture('excel-unicode-text.csv');
    const text = iconv.decode(le.subarray(2), 'utf16le');
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf16be')]);
    const r = parseBankStatement(be);
    expect(r.encoding).toBe('utf-16be');
    expect(r.rows).toEqual(parseFixture('excel-unicode-text.csv').rows);
  });

  it('UTF-16 LE without a BOM is recognised from its zero bytes', () => {
    const r = parseBankStatement(readFixture('excel-unicode-text.csv').subarray(2));
    expect(r.encoding).toBe('utf-16le');
    expect(r.rows).toEqual(parseFixture('excel-unicode-text.csv').rows);
  });

  it('Windows-1252: é as the single byte 0xE9, pound amounts, day-first by region', () => {
    const bytes = readFixture('windows-1252.csv');
    expect(bytes.includes(0xe9)).toBe(true);
    const r = parseBankStatement(bytes);
    expect(r.encoding).toBe('windows-1252');
    expect(lines(r)).toEqual([
      [2, '2024-02-03', -1250, 'Café de Paris'],
      [3, '2024-02-04', -320, 'Boulangerie Émile'],
      [4, '2024-02-05', -795, 'Pâtisserie Valérie'],
      [5, '2024-02-06', 1250, 'Refund Café de Paris'],
    ]);
    expect(r.rows.every((x) => x.currency === 'GBP')).toBe(true);
  });

  it('UTF-8 with BOM: the BOM does not stick to the first header cell', () => {
    const r = parseFixture('utf8-bom.csv');
    expect(r).toMatchObject({ layout: 'paperlink', encoding: 'utf-8-bom' });
    expect(r.header?.[0]).toBe('Transaction Date');
    expect(lines(r)).toEqual([
      [2, '2024-05-01', -640, 'BÄCKEREI SCHMIDT'],
      [3, '2024-05-02', -123400, 'OFFICE DEPOT #212'],
    ]);
  });
});
