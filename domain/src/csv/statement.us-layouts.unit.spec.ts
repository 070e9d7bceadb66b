import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseBankStatement } from './statement';
import type { StatementParseResult } from './types';

const parseFixture = (name: string): StatementParseResult =>
  parseBankStatement(readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))));

/** [line in file, date, signed cents, description] for every imported row, in file order. */
type Line = [number, string, number, string];
const lines = (r: StatementParseResult): Line[] => r.rows.map((x) => [x.row, x.date, x.amountCents, x.description]);

describe('US bank and card layouts', () => {
  it('Chase card: negative purchases, positive payments and returns, ambiguous dates read month-first', () => {
    const r = parseFixture('chase-card.csv');
    expect(r.layout).toBe('chase-card');
    expect(r.dateOrder).toBe('mdy');
    expect(lines(r)).toEqual([
      [2, '2024-01-02', -575, 'STARBUCKS STORE 10423'],
      [3, '2024-01-03', -123456, 'AMAZON MKTPLACE PMTS'],
      [4, '2024-01-04', -2310, 'UBER   *TRIP'],
      [5, '2024-01-05', 150000, 'AUTOMATIC PAYMENT - THANK'],
      [6, '2024-01-06', 4599, 'AMAZON MKTPLACE PMTS'],
      [7, '2024-01-07', -650, 'SQ *BLUE BOTTLE, OAKLAND'],
      [8, '2024-02-10', -9500, 'ANNUAL MEMBERSHIP FEE'],
      [9, '2024-03-11', -4820, 'SHELL OIL 57444'],
    ]);
    expect(r.rows[0]?.category).toBe('Food & Drink');
    expect(r.rows[3]?.category).toBeUndefined();
  });

  it('Chase checking: CRLF, trailing comma, signed amounts, check number as reference', () => {
    const r = parseFixture('chase-checking.csv');
    expect(r.layout).toBe('chase-checking');
    expect(lines(r)).toEqual([
      [2, '2024-01-16', -25000, 'ZELLE PAYMENT TO JOHN SMITH 1234567'],
      [3, '2024-01-15', 250000, 'PAYROLL ACME CORP PPD ID: 9876'],
      [4, '2024-01-12', -12000, 'CHECK 1042'],
      [5, '2024-01-10', -31245, 'COSTCO WHSE #0117 SEATTLE WA'],
      [6, '2024-01-09', 7500, 'REMOTE ONLINE DEPOSIT #1'],
    ]);
    expect(r.rows[2]?.externalId).toBe('1042');
  });

  it('American Express: positive charges become expenses, payments and credits become positive; multi-line cells keep line numbers', () => {
    const r = parseFixture('amex.csv');
    expect(r.layout).toBe('amex');
    expect(r.amountSign).toBe('expense-positive');
    expect(lines(r)).toEqual([
      [2, '2024-01-15', -120430, 'DELTA AIR LINES ATLANTA'],
      [5, '2024-01-16', -38912, 'HILTON HOTELS'],
      [6, '2024-01-20', 250000, 'ONLINE PAYMENT - THANK YOU'],
      [7, '2024-01-22', 15000, 'DELTA AIR LINES ATLANTA'],
      [8, '2024-02-03', -2745, 'UBER EATS    help.uber.com'],
    ]);
    expect(r.rows[0]).toMatchObject({ fullName: 'JANE A DOE', externalId: '320240150123456789', category: 'Travel-Airline' });
    expect(r.rows[4]?.currency).toBe('USD');
  });

  it('Amex basic download (Date, Description, Amount; mostly positive): charges still become expenses', () => {
    const r = parseFixture('amex-basic.csv');
    expect(r.amountSign).toBe('expense-positive');
    expect(lines(r)).toEqual([
      [2, '2024-01-05', -8412, 'WHOLE FOODS MARKET #10234'],
      [3, '2024-01-07', -1549, 'NETFLIX.COM'],
      [4, '2024-01-09', -1873, 'LYFT   *RIDE WED 8PM'],
      [5, '2024-01-13', 50000, 'AUTOPAY PAYMENT - THANK YOU'],
      [6, '2024-01-14', -2280, 'SHAKE SHACK 1052'],
      [7, '2024-01-19', -109900, 'APPLE.COM/BILL'],
      [8, '2024-01-21', 1200, 'WHOLE FOODS MARKET #10234'],
    ]);
  });

  it('Capital One: unsigned Debit and Credit columns, thousands separators', () => {
    const r = parseFixture('capital-one.csv');
    expect(r.layout).toBe('capital-one');
    expect(lines(r)).toEqual([
      [2, '2024-01-03', -3218, "TST* MAMA'S KITCHEN"],
      [3, '2024-01-05', -129999, 'BEST BUY 00012345'],
      [4, '2024-01-08', 100000, 'CAPITAL ONE MOBILE PYMT'],
      [5, '2024-01-09', 4999, 'BEST BUY 00012345'],
      [6, '2024-01-12', -1099, 'SPOTIFY USA'],
    ]);
  });

  it('Bank of America checking: skips the summary block, sets the opening balance line aside', () => {
    const r = parseFixture('bank-of-america-checking.csv');
    expect(r.layout).toBe('bank-of-america-checking');
    expect(r.header).toEqual(['Date', 'Description', 'Amount', 'Running Bal.']);
    expect(lines(r)).toEqual([
      [9, '2024-01-02', -575, 'CHECKCARD 0101 STARBUCKS STORE 1234 SEATTLE WA'],
      [10, '2024-01-05', 250000, 'PAYROLL ACME CORP DES:PAYROLL ID:123'],
      [11, '2024-01-15', -100000, 'Online Banking transfer to SAV 1234 Confirmation# 1234567890'],
      [12, '2024-01-20', -34136, 'PURCHASE 0118 WHOLEFDS SEA 10234 SEATTLE WA'],
    ]);
    expect(r.ignoredRows).toEqual([{ row: 8, reason: 'balance line, not a transaction' }]);
    expect(r.rowErrors).toEqual([]);
  });

  it('Bank of America credit card: Payee is the merchant, Reference Number the external id', () => {
    const r = parseFixture('bank-of-america-card.csv');
    expect(r.layout).toBe('bank-of-america-card');
    expect(lines(r)).toEqual([
      [2, '2024-01-18', -4217, 'AMAZON.COM*RT4KL1234 AMZN.COM/BILLWA'],
      [3, '2024-01-17', -11803, 'TARGET 00023456 SEATTLE WA'],
      [4, '2024-01-16', 60000, 'PAYMENT - THANK YOU'],
      [5, '2024-01-12', 1999, 'TARGET 00023456 SEATTLE WA'],
    ]);
    expect(r.rows.map((x) => x.externalId)).toEqual(['24692164017100012345678', '24431064016000987654321', undefined, '74431064012000111111111']);
  });

  it('Wells Fargo: no header row (date, amount, *, check number, description)', () => {
    const r = parseFixture('wells-fargo.csv');
    expect(r.layout).toBe('wells-fargo');
    expect(r.header).toBeNull();
    expect(r.headerKey).toBe('headerless:5');
    expect(lines(r)).toEqual([
      [1, '2024-01-31', -4500, 'PURCHASE AUTHORIZED ON 01/29 SQ *VERVE COFFEE S384029384 CARD 1234'],
      [2, '2024-01-30', 250000, 'ACME CORP PAYROLL 240130 XXXXX1234 JOHN DOE'],
      [3, '2024-01-15', -120000, 'CHECK # 1043'],
      [4, '2024-01-03', -999, 'RECURRING PAYMENT AUTHORIZED ON 01/02 NETFLIX.COM CA S584 CARD 1234'],
      [5, '2024-01-02', 45, 'INTEREST PAYMENT'],
    ]);
  });

  it("the product's own layout with other spellings: Sales Tax, Job No, FirstName/Surname, (1,234.56), $-89.10", () => {
    const r = parseFixture('paperlink-alt-names.csv');
    expect(r.layout).toBe('paperlink');
    expect(r.rows).toEqual([
      { row: 2, date: '2024-03-01', description: 'HOME DEPOT #4521', amountCents: -123456, salesTaxCents: 9876, category: 'Materials', jobNumber: 'J-1001', costCode: '02-2000', firstName: 'Dana', lastName: 'Smith' },
      { row: 3, date: '2024-03-02', description: 'SUNOCO 0123', amountCents: -4500, category: 'Fuel', jobNumber: 'J-1002', firstName: 'Ana', lastName: 'Lopez' },
      { row: 4, date: '2024-03-03', description: 'HOME DEPOT #4521', amountCents: 2500, salesTaxCents: 200, category: 'Materials', jobNumber: 'J-1001', costCode: '02-2000', firstName: 'Dana', lastName: 'Smith' },
      { row: 5, date: '2024-03-04', description: "LOWE'S #1234", amountCents: -8910, currency: 'USD', category: 'Materials', jobNumber: 'J-1002', costCode: '02-2000', firstName: 'chen', lastName: 'wei' },
    ]);
  });

  it("the product's own layout with a single Name column", () => {
    const r = parseFixture('paperlink-name-column.csv');
    expect(r.layout).toBe('paperlink');
    expect(r.rows.map((x) => x.fullName)).toEqual(['Smith, Dana', 'ana m. lopez', 'CHEN WEI', undefined, 'Pat Unknown']);
    expect(r.rows.map((x) => x.amountCents)).toEqual([-1999, -41200, -23055, -840, -1599]);
  });
});
