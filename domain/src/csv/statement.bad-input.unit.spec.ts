import { describe, expect, it } from 'vitest';
import { AppError, ValidationError } from '../core/errors';
import { CsvFileError } from './errors';
import { parseBankStatement } from './statement';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function fileError(bytes: Uint8Array): CsvFileError {
  try {
    parseBankStatement(bytes);
  } catch (e) {
    if (e instanceof CsvFileError) return e;
    throw e;
  }
  throw new Error('expected a CsvFileError');
}

describe('files that cannot be imported', () => {
  it.each([
    ['no bytes', new Uint8Array()],
    ['only blank lines', utf8('  \r\n\r\n   \n')],
    ['only a UTF-8 BOM', new Uint8Array([0xef, 0xbb, 0xbf])],
    ['only a UTF-16 BOM', new Uint8Array([0xff, 0xfe])],
  ])('%s: empty_file', (_, bytes) => {
    const e = fileError(bytes);
    expect(e.code).toBe('empty_file');
    expect(e.message).toBe('The file is empty.');
  });

  it.each([
    ['a PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], /PNG image/],
    ['an Excel workbook', [0x50, 0x4b, 0x03, 0x04, 0x14, 0, 6, 0], /Excel workbook.*save it as CSV/],
    ['a PDF', [...utf8('%PDF-1.7\n%âãÏÓ\n1 0 obj')], /PDF document/],
    ['random bytes with NULs', [0x12, 0x00, 0x9f, 0x00, 0x00, 0x41, 0x07, 0x08, 0x00, 0x01, 0xff, 0x00, 0x33], /not text/],
  ])('%s: binary_file', (_, bytes, message) => {
    const e = fileError(new Uint8Array(bytes));
    expect(e.code).toBe('binary_file');
    expect(e.message).toMatch(message);
  });

  it.each([
    ['prose', 'Dear team\nPlease find my expenses attached\nThanks\n', /no comma, semicolon or tab/],
    ['JSON', '[{"date": "2024-01-01", "amount": -3.5}]', /JSON/],
    ['OFX', 'OFXHEADER:100\nDATA:OFXSGML\n<OFX>', /OFX/],
    ['HTML', '<!DOCTYPE html><html><body>Session expired</body></html>', /HTML/],
  ])('%s: not_csv', (_, text, message) => {
    const e = fileError(utf8(text));
    expect(e.code).toBe('not_csv');
    expect(e.message).toMatch(message);
  });

  it('a header and nothing else: header_only', () => {
    for (const text of ['Transaction Date,Description,Amount\n', 'Transaction Date,Description,Amount\r\n\r\n,,\r\n', 'When,What,How much\n']) {
      const e = fileError(utf8(text));
      expect(e.code).toBe('header_only');
      expect(e.message).toBe('The file has a header row but no transactions.');
    }
  });

  it('no line readable: no_valid_rows with the reasons', () => {
    const e = fileError(utf8('Date,Description,Amount\nyesterday,COFFEE,-3.50\n01/02/2024,,-1.00\n'));
    expect(e.code).toBe('no_valid_rows');
    expect(e).toBeInstanceOf(AppError);
    expect(e.status).toBe(422);
    expect(e.details).toEqual({
      rowErrors: [
        { row: 2, reason: 'bad date "yesterday"', raw: 'yesterday,COFFEE,-3.50' },
        { row: 3, reason: 'missing description', raw: '01/02/2024,,-1.00' },
      ],
    });
  });

  it('only a balance line: no_valid_rows', () => {
    const e = fileError(utf8('Date,Description,Amount,Running Bal.\n01/01/2024,Beginning balance as of 01/01/2024,,"5,000.00"\n'));
    expect(e.code).toBe('no_valid_rows');
  });
});

describe('lines that cannot be read are reported, never dropped', () => {
  const csv = [
    'Transaction Date,Description,Amount',
    '2024-01-05,GOOD ONE,-1.00',
    '2024-02-30,BAD DAY,-2.00',
    '2024-01-06,BAD AMOUNT,12.3.4',
    '2024-01-07,,-3.00',
    '2024-01-08,NO AMOUNT,',
    'not a date,ALSO BAD AMOUNT,abc',
    '',
    '2024-01-09,"BROKEN QUOTE,-4.00',
    '2024-01-10,GOOD TWO,"-1,000.00"',
  ].join('\n');

  it('keeps the good lines and says why each other line failed', () => {
    const r = parseBankStatement(utf8(csv));
    expect(r.rows.map((x) => [x.row, x.description, x.amountCents])).toEqual([
      [2, 'GOOD ONE', -100],
      [9, '"BROKEN QUOTE', -400],
      [10, 'GOOD TWO', -100000],
    ]);
    expect(r.rowErrors).toEqual([
      { row: 3, reason: 'bad date "2024-02-30"', raw: '2024-02-30,BAD DAY,-2.00' },
      { row: 4, reason: 'bad amount "12.3.4"', raw: '2024-01-06,BAD AMOUNT,12.3.4' },
      { row: 5, reason: 'missing description', raw: '2024-01-07,,-3.00' },
      { row: 6, reason: 'missing amount', raw: '2024-01-08,NO AMOUNT,' },
      { row: 7, reason: 'bad date "not a date"; bad amount "abc"', raw: 'not a date,ALSO BAD AMOUNT,abc' },
    ]);
  });

  it('a file that contradicts itself on date order: the majority wins, the others fail as bad dates', () => {
    const r = parseBankStatement(utf8('Date,Description,Amount\n13/01/2024,A,-1\n14/01/2024,B,-1\n01/15/2024,C,-1\n02/03/2024,D,-1\n'));
    expect(r.dateOrder).toBe('dmy');
    expect(r.rows.map((x) => x.date)).toEqual(['2024-01-13', '2024-01-14', '2024-03-02']);
    expect(r.rowErrors).toEqual([{ row: 4, reason: 'bad date "01/15/2024"', raw: '01/15/2024,C,-1' }]);
  });
});

describe('unrecognised columns: ask, then follow the mapping', () => {
  const odd = utf8('When,What,How much,Who\n03/04/2024,Taxi to airport,45.00,Dana Smith\n03/05/2024,Hotel Lisboa,"1,210.00",Dana Smith\n');

  it('returns the header, a preview and best guesses, and no rows', () => {
    const r = parseBankStatement(odd);
    expect(r.layout).toBe('unknown');
    expect(r.rows).toEqual([]);
    expect(r.headerKey).toBe('when|what|howmuch|who');
    expect(r.needsMapping).toEqual({
      header: ['When', 'What', 'How much', 'Who'],
      preview: [['03/04/2024', 'Taxi to airport', '45.00', 'Dana Smith'], ['03/05/2024', 'Hotel Lisboa', '1,210.00', 'Dana Smith']],
      suggested: { date: 0, amount: 2, description: 1, dateOrder: 'auto', amountSign: 'expense-negative' },
    });
  });

  it('imports with the mapping: day-first and positive expenses as the user says', () => {
    const r = parseBankStatement(odd, {
      mapping: { date: 0, description: 1, amount: 2, fullName: 3, dateOrder: 'dmy', amountSign: 'expense-positive' },
    });
    expect(r.layout).toBe('custom');
    expect(r.headerKey).toBe('when|what|howmuch|who');
    expect(r.rows).toEqual([
      { row: 2, date: '2024-04-03', description: 'Taxi to airport', amountCents: -4500, fullName: 'Dana Smith' },
      { row: 3, date: '2024-05-03', description: 'Hotel Lisboa', amountCents: -121000, fullName: 'Dana Smith' },
    ]);
  });

  it('a headerless file that is not Wells Fargo: columns are named by number, and a mapping imports it from line 1', () => {
    const bytes = utf8('2024-01-05;KAFFEEHAUS;-3,50;x\n2024-01-06;BAHN;-29,90;y\n');
    const r = parseBankStatement(bytes);
    expect(r.header).toBeNull();
    expect(r.headerKey).toBe('headerless:4');
    expect(r.needsMapping?.header).toEqual(['Column 1', 'Column 2', 'Column 3', 'Column 4']);
    expect(r.needsMapping?.suggested).toMatchObject({ date: 0, amount: 2, description: 1 });
    const mapped = parseBankStatement(bytes, { mapping: { date: 0, description: 1, amount: 2, dateOrder: 'auto', amountSign: 'expense-negative' } });
    expect(mapped.rows.map((x) => [x.row, x.date, x.amountCents])).toEqual([[1, '2024-01-05', -350], [2, '2024-01-06', -2990]]);
  });

  it('debit and credit columns through a mapping', () => {
    const bytes = utf8('Booked,Text,Out,In\n2024-01-05,RENT,800.00,\n2024-01-06,SALARY,,2000.00\n');
    const r = parseBankStatement(bytes, { mapping: { date: 0, description: 1, debit: 2, credit: 3, dateOrder: 'auto', amountSign: 'expense-negative' } });
    expect(r.rows.map((x) => x.amountCents)).toEqual([-80000, 200000]);
  });

  it('refuses a mapping that points outside the file', () => {
    expect(() => parseBankStatement(odd, { mapping: { date: 0, description: 9, amount: 2, dateOrder: 'auto', amountSign: 'expense-negative' } }))
      .toThrow(ValidationError);
    expect(() => parseBankStatement(odd, { mapping: { date: 0, description: 1, dateOrder: 'auto', amountSign: 'expense-negative' } }))
      .toThrow(/does not fit/);
  });
});

describe('text cells follow the limits an edit applies', () => {
  it('a description over 500 characters makes its row an error at parse time; the row at the limit is kept', () => {
    const atLimit = 'A'.repeat(500);
    const huge = 'X'.repeat(2_000_000);
    const r = parseBankStatement(utf8(`Date,Description,Amount\n2024-01-05,${atLimit},-1.00\n2024-01-06,${huge},-2.00\n2024-01-07,COFFEE,-3.00\n`));
    expect(r.rows.map((x) => [x.row, x.description.length])).toEqual([[2, 500], [4, 6]]);
    expect(r.rowErrors).toEqual([{ row: 3, reason: 'description longer than 500 characters (2000000)', raw: `2024-01-06,${'X'.repeat(189)}` }]);
  });

  it('names, category, job and cost code over 200 characters are refused the same way', () => {
    const long = 'n'.repeat(201);
    const r = parseBankStatement(utf8(`Date,Description,Amount,Category,Cardholder Name\n2024-01-05,TAXI,-1.00,${long},Ann\n2024-01-06,BUS,-2.00,Travel,${long}\n2024-01-07,TRAM,-3.00,Travel,Ann\n`));
    expect(r.rows.map((x) => x.description)).toEqual(['TRAM']);
    expect(r.rowErrors.map((e) => e.reason)).toEqual(['category longer than 200 characters (201)', 'name longer than 200 characters (201)']);
  });
});
