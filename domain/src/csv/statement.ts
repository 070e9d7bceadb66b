/**
 * parseBankStatement: bytes of a bank or card export to transactions, recognising the
 * layout on its own (see layouts.ts), or following the user's column mapping.
 */
import { ValidationError } from '../core/errors';
import { convertRecords, settleConventions } from './convert';
import type { Plan } from './convert';
import { decodeCsvBytes } from './decode';
import { CsvFileError } from './errors';
import { headerCurrency, isComplete, mapHeader, normalizeHeader } from './header';
import type { FieldMap } from './header';
import { guessColumns, isWellsFargo, looksLikeData } from './infer';
import { findLayout, WELLS_FARGO } from './layouts';
import { detectDelimiter, isBlankRecord, tokenize } from './tokenize';
import type { CsvRecord } from './tokenize';
import type { ColumnMapping, CsvDelimiter, CsvEncoding, StatementParseOptions, StatementParseResult } from './types';

const HEADER_SEARCH = 30;
const PREVIEW_ROWS = 10;

export function parseBankStatement(bytes: Uint8Array, options: StatementParseOptions = {}): StatementParseResult {
  const { text, encoding } = decodeCsvBytes(bytes);
  refuseOtherFormats(text);
  const { delimiter, width, sepLine } = detectDelimiter(text);
  if (width < 2) {
    throw new CsvFileError('not_csv', 'This file is not a CSV file: no comma, semicolon or tab separates its columns.');
  }
  const all = tokenize(text, delimiter);
  const records = (sepLine ? all.slice(1) : all).filter((r) => !isBlankRecord(r.cells));
  const file: FileText = { encoding, delimiter, records, maxRows: options.maxRows };
  return options.mapping ? withMapping(file, options.mapping) : recognise(file);
}

interface FileText {
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  /** Non-blank records. */
  records: CsvRecord[];
  maxRows?: number;
}

function recognise(file: FileText): StatementParseResult {
  const { records } = file;
  const search = records.slice(0, HEADER_SEARCH);
  for (let i = 0; i < search.length; i++) {
    const cells = search[i]?.cells ?? [];
    const normalized = cells.map(normalizeHeader);
    const layout = findLayout(normalized);
    const fields = mapHeader(normalized, layout?.aliases);
    if (!isComplete(fields)) continue;
    const plan: Plan = {
      layout: layout?.id ?? 'generic',
      fields,
      amountSign: layout?.amountSign ?? 'expense-negative',
      layoutDateOrder: layout?.dateOrder,
      region: layout?.region,
      voidStates: layout?.voidStates,
      columnCurrency: fields.amount === undefined ? undefined : headerCurrency(cells[fields.amount] ?? ''),
      delimiter: file.delimiter,
    };
    return finish(file, plan, cells, records.slice(i + 1), !layout);
  }
  if (isWellsFargo(records)) {
    const plan: Plan = {
      layout: WELLS_FARGO.id,
      fields: { date: WELLS_FARGO.date, amount: WELLS_FARGO.amount, description: WELLS_FARGO.description },
      amountSign: 'expense-negative',
      layoutDateOrder: 'mdy',
      region: 'us',
      delimiter: file.delimiter,
    };
    return finish(file, plan, null, records, false);
  }
  return askForMapping(file);
}

function askForMapping(file: FileText): StatementParseResult {
  const { records } = file;
  const first = records[0];
  if (!first) throw new CsvFileError('empty_file', 'The file is empty.');
  const headerless = looksLikeData(first.cells);
  const data = headerless ? records : records.slice(1);
  if (data.length === 0) throw headerOnly();
  refuseTooMany(file, data.length);
  const width = Math.max(...records.slice(0, 50).map((r) => r.cells.length));
  const header = headerless
    ? Array.from({ length: width }, (_, i) => `Column ${i + 1}`)
    : first.cells.map((c) => c.trim());
  const fromHeader: FieldMap = headerless ? {} : mapHeader(header.map(normalizeHeader));
  const taken = new Set(Object.values(fromHeader));
  const guessed = guessColumns(data, width, taken);
  const suggested: Partial<ColumnMapping> = { dateOrder: 'auto', amountSign: 'expense-negative' };
  for (const [field, index] of Object.entries({ ...guessed, ...fromHeader })) {
    if (field in SUGGESTABLE && index !== undefined) suggested[field as keyof typeof SUGGESTABLE] = index;
  }
  return {
    layout: 'unknown',
    encoding: file.encoding,
    delimiter: file.delimiter,
    header: headerless ? null : header,
    headerKey: headerKeyOf(headerless ? null : first.cells, width),
    dateOrder: 'mdy',
    decimalMark: '.',
    amountSign: 'expense-negative',
    rows: [],
    rowErrors: [],
    ignoredRows: [],
    needsMapping: {
      header,
      preview: data.slice(0, PREVIEW_ROWS).map((r) => r.cells.map((c) => c.trim())),
      suggested,
    },
  };
}

const SUGGESTABLE = {
  date: 1, description: 1, amount: 1, debit: 1, credit: 1, category: 1, jobNumber: 1, costCode: 1,
  firstName: 1, lastName: 1, fullName: 1, externalId: 1, salesTax: 1, currency: 1,
} as const;

function withMapping(file: FileText, mapping: ColumnMapping): StatementParseResult {
  const { records } = file;
  const width = records.reduce((w, r) => Math.max(w, r.cells.length), 0);
  const fields: FieldMap = {};
  const problems: { field: string; message: string }[] = [];
  for (const field of Object.keys(SUGGESTABLE) as (keyof typeof SUGGESTABLE)[]) {
    const index = mapping[field];
    if (index === undefined) continue;
    if (!Number.isInteger(index) || index < 0 || index >= width) {
      problems.push({ field, message: `column ${index} does not exist; the file has ${width} columns` });
    } else fields[field] = index;
  }
  if (mapping.amount === undefined && mapping.debit === undefined && mapping.credit === undefined) {
    problems.push({ field: 'amount', message: 'choose an amount column, or debit and credit columns' });
  }
  if (problems.length > 0) throw new ValidationError('The column mapping does not fit this file.', problems);
  // The header, if any, is the last record before the first one with a date where the mapping says.
  const firstData = records.findIndex((r, i) => i < HEADER_SEARCH && looksLikeData([r.cells[mapping.date] ?? '', pickAmount(r, fields)]));
  const start = firstData < 0 ? Math.min(1, records.length) : firstData;
  const header = start > 0 ? records[start - 1]?.cells ?? null : null;
  const plan: Plan = {
    layout: 'custom',
    fields,
    amountSign: mapping.amountSign,
    dateOrder: mapping.dateOrder === 'auto' ? undefined : mapping.dateOrder,
    delimiter: file.delimiter,
  };
  return finish(file, plan, header, records.slice(start), false);
}

function pickAmount(r: CsvRecord, f: FieldMap): string {
  for (const col of [f.amount, f.debit, f.credit]) {
    const v = col === undefined ? '' : r.cells[col] ?? '';
    if (v.trim() !== '') return v;
  }
  return '';
}

function finish(file: FileText, plan: Plan, header: string[] | null, data: CsvRecord[], generic: boolean): StatementParseResult {
  if (data.length === 0) throw headerOnly();
  refuseTooMany(file, data.length);
  const conventions = settleConventions(data, plan);
  if (generic) {
    plan.layout = conventions.region === 'eu' && (file.delimiter === ';' || conventions.decimalMark === ',') ? 'european' : 'generic';
    if (conventions.region === 'us' && mostlyPositive(data, plan)) {
      plan.amountSign = 'expense-positive';
    }
  }
  const converted = convertRecords(data, plan, conventions);
  if (converted.rows.length === 0) {
    const reason = converted.rowErrors.length > 0
      ? `None of the ${converted.rowErrors.length} lines could be read as a transaction (first problem, line ${converted.rowErrors[0]?.row}: ${converted.rowErrors[0]?.reason}).`
      : 'The file has no transactions to import, only balance or declined lines.';
    throw new CsvFileError('no_valid_rows', reason, { rowErrors: converted.rowErrors.slice(0, 20) });
  }
  const width = Math.max(...data.slice(0, 50).map((r) => r.cells.length));
  return {
    layout: plan.layout,
    encoding: file.encoding,
    delimiter: file.delimiter,
    header: header ? header.map((c) => c.trim()) : null,
    headerKey: headerKeyOf(header, width),
    dateOrder: conventions.dateOrder,
    decimalMark: conventions.decimalMark,
    amountSign: plan.amountSign,
    ...converted,
  };
}

/**
 * A US card export whose convention we do not know, with more than twice as many
 * positive amounts as negative ones, writes charges as positive numbers (Amex's basic
 * download, other issuers): an expense tracker's statements are mostly spending.
 */
function mostlyPositive(data: CsvRecord[], plan: Plan): boolean {
  const col = plan.fields.amount;
  if (col === undefined) return false;
  let positive = 0;
  let negative = 0;
  for (const r of data) {
    const v = (r.cells[col] ?? '').trim();
    if (v === '') continue;
    if (/^[-−(]|-$|\)$/.test(v) || /\bDR$/i.test(v)) negative++;
    else if (/\d/.test(v)) positive++;
  }
  return positive > 2 * negative;
}

export function headerKeyOf(header: readonly string[] | null, width: number): string {
  if (!header) return `headerless:${width}`;
  return header.map(normalizeHeader).join('|');
}

/** Checked before any line is converted: a file over the limit costs its tokenizing only. */
function refuseTooMany(file: FileText, lines: number): void {
  if (file.maxRows === undefined || lines <= file.maxRows) return;
  const n = (v: number) => v.toLocaleString('en-US');
  throw new CsvFileError('too_many_rows', `This file has ${n(lines)} rows; an import takes at most ${n(file.maxRows)} rows. Split the file.`, { rows: lines, maxRows: file.maxRows });
}

function headerOnly(): CsvFileError {
  return new CsvFileError('header_only', 'The file has a header row but no transactions.');
}

function refuseOtherFormats(text: string): void {
  const start = text.slice(0, 200).trimStart();
  if (/^OFXHEADER|^<OFX>|^<\?OFX/i.test(start)) {
    throw new CsvFileError('not_csv', 'This is an OFX/QFX (Quicken/Money) file, not a CSV file. Download the statement as CSV instead.');
  }
  if (/^<(\?xml|!doctype|html)/i.test(start)) {
    throw new CsvFileError('not_csv', 'This is an HTML or XML document, not a CSV file.');
  }
  if (/^[{[]\s*["{[]/.test(start)) {
    throw new CsvFileError('not_csv', 'This is a JSON document, not a CSV file.');
  }
}
