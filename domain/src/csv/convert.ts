/**
 * Records to transactions once the columns are known. Conventions that need the whole
 * file (date order, decimal mark) are settled first, then each record becomes a row, an
 * error with a reason, or a line deliberately ignored (balance lines, declined payments).
 */
import { detectDecimalMark, isBlankAmount, parseAmount } from './amount';
import { centsWithinRule, MONEY_RULE } from '../core/money';
import { dateOrderEvidence, decideDateOrder, parseDate } from './date';
import type { FieldMap } from './header';
import type { Region } from './layouts';
import type { CsvRecord } from './tokenize';
import { isBlankRecord } from './tokenize';
import type { AmountSign, DateOrder, IgnoredRow, ParsedRow, RowError } from './types';

/** Why an amount cell failed; a number with too many decimals names the money rule. */
function badAmount(label: string, raw: string, decimalMark: '.' | ','): string {
  const why = parseAmount(raw, decimalMark, true) ? ` (${MONEY_RULE})` : '';
  return `bad ${label} "${raw.trim()}"${why}`;
}

/** A description is at most this long: the edit form's rule, so an imported row can be saved again as it is. */
export const MAX_DESCRIPTION_LENGTH = 500;
/** The other text cells a row keeps (names, category, job, cost code, bank reference). */
export const MAX_IMPORT_TEXT_LENGTH = 200;

/**
 * A text cell, or why it is refused: a cell over its limit makes its row an error, decided
 * before anything downstream (de-duplication keys, categorisation, the list) has to carry it.
 */
function limited(value: string | undefined, label: string, max: number, problems: string[]): string | undefined {
  if (value === undefined || value.length <= max) return value;
  problems.push(`${label} longer than ${max} characters (${value.length})`);
  return undefined;
}

export interface Plan {
  layout: string;
  fields: FieldMap;
  amountSign: AmountSign;
  /** Set when the user chose; otherwise decided from the file. */
  dateOrder?: DateOrder;
  /** The layout's own convention for ambiguous files. */
  layoutDateOrder?: DateOrder;
  /** Known from the layout; otherwise inferred from the file. */
  region?: Region;
  voidStates?: readonly string[];
  /** From a header such as "Amount (GBP)". */
  columnCurrency?: string;
  delimiter: string;
}

export interface Conventions {
  dateOrder: DateOrder;
  decimalMark: '.' | ',';
  region: Region;
}

export interface Converted {
  rows: ParsedRow[];
  rowErrors: RowError[];
  ignoredRows: IgnoredRow[];
}

const DEBIT_WORDS = new Set(['debit', 'dr', 'd', 'withdrawal', 'out', 'af', 'soll', 's', 'charge']);
const CREDIT_WORDS = new Set(['credit', 'cr', 'c', 'deposit', 'in', 'bij', 'haben', 'h']);
const BALANCE_LINE = /^(beginning|opening|ending|closing|starting)\s+balance\b/i;

/** Non-empty cells of the given columns, at most `limit` of them. */
function* columnValues(records: readonly CsvRecord[], columns: (number | undefined)[], limit = Infinity): Generator<string> {
  let n = 0;
  for (const col of columns) {
    if (col === undefined) continue;
    for (const r of records) {
      const v = r.cells[col];
      if (v === undefined || v === '') continue;
      if (n++ >= limit) return;
      yield v;
    }
  }
}

export function settleConventions(records: readonly CsvRecord[], plan: Plan): Conventions {
  const f = plan.fields;
  const amountColumns = [f.amount, f.debit, f.credit];
  const semicolon = plan.delimiter === ';';
  const decimalMark = detectDecimalMark(columnValues(records, amountColumns), plan.region === 'eu' || semicolon ? ',' : '.');
  // Posting dates only help when the transaction dates cannot tell.
  let evidence = dateOrderEvidence(columnValues(records, [f.date]));
  if (evidence.dayFirst + evidence.monthFirst === 0) evidence = dateOrderEvidence(columnValues(records, [f.date, f.postDate]));
  const symbols = /[£€]/.test([...columnValues(records, amountColumns, 200)].join(''));
  const region: Region = plan.region
    ?? (semicolon || decimalMark === ',' || evidence.dotted > 0 || symbols
      || plan.columnCurrency === 'GBP' || plan.columnCurrency === 'EUR' ? 'eu' : 'us');
  const fallback = plan.layoutDateOrder ?? (region === 'eu' ? 'dmy' : 'mdy');
  return { dateOrder: plan.dateOrder ?? decideDateOrder(evidence, fallback), decimalMark, region };
}

export function convertRecords(records: readonly CsvRecord[], plan: Plan, conv: Conventions): Converted {
  const out: Converted = { rows: [], rowErrors: [], ignoredRows: [] };
  const f = plan.fields;
  const text = (cells: string[], col: number | undefined): string | undefined => {
    if (col === undefined) return undefined;
    const v = cleanText(cells[col] ?? '');
    return v === '' ? undefined : v;
  };
  const flip = plan.amountSign === 'expense-positive';
  for (const { line, cells } of records) {
    if (isBlankRecord(cells)) continue;
    const problems: string[] = [];
    const state = text(cells, f.state)?.toUpperCase();
    if (state && plan.voidStates?.includes(state)) {
      out.ignoredRows.push({ row: line, reason: `${state.toLowerCase()} payment, not a transaction` });
      continue;
    }
    const rawDescription = text(cells, f.description);
    const description = limited(rawDescription, 'description', MAX_DESCRIPTION_LENGTH, problems);
    const amountRaw = f.amount === undefined ? '' : cells[f.amount] ?? '';
    const debitRaw = f.debit === undefined ? '' : cells[f.debit] ?? '';
    const creditRaw = f.credit === undefined ? '' : cells[f.credit] ?? '';
    const noAmount = isBlankAmount(amountRaw) && isBlankAmount(debitRaw) && isBlankAmount(creditRaw);
    if (noAmount && description && BALANCE_LINE.test(description)) {
      out.ignoredRows.push({ row: line, reason: 'balance line, not a transaction' });
      continue;
    }
    const dateRaw = (f.date === undefined ? '' : cells[f.date] ?? '').trim();
    const date = dateRaw === '' ? null : parseDate(dateRaw, conv.dateOrder);
    if (!date) problems.push(dateRaw === '' ? 'missing date' : `bad date "${dateRaw}"`);
    if (!rawDescription) problems.push('missing description');
    let cents: number | null = null;
    let currency: string | undefined;
    if (noAmount) problems.push('missing amount');
    else if (!isBlankAmount(amountRaw)) {
      const a = parseAmount(amountRaw, conv.decimalMark);
      if (!a) problems.push(badAmount('amount', amountRaw, conv.decimalMark));
      else {
        cents = flip ? -a.cents : a.cents;
        currency = a.currency;
      }
    } else {
      const d = isBlankAmount(debitRaw) ? { cents: 0 } : parseAmount(debitRaw, conv.decimalMark);
      const c = isBlankAmount(creditRaw) ? { cents: 0 } : parseAmount(creditRaw, conv.decimalMark);
      if (!d) problems.push(badAmount('debit amount', debitRaw, conv.decimalMark));
      if (!c) problems.push(badAmount('credit amount', creditRaw, conv.decimalMark));
      if (d && c) {
        cents = Math.abs(c.cents) - Math.abs(d.cents);
        currency = d.currency ?? c.currency;
      }
    }
    if (cents !== null) {
      const direction = text(cells, f.direction)?.toLowerCase();
      if (direction && DEBIT_WORDS.has(direction)) cents = -Math.abs(cents);
      else if (direction && CREDIT_WORDS.has(direction)) cents = Math.abs(cents);
      const feeRaw = text(cells, f.fee);
      if (feeRaw) {
        const fee = parseAmount(feeRaw, conv.decimalMark);
        if (!fee) problems.push(badAmount('fee', feeRaw, conv.decimalMark));
        else cents -= Math.abs(fee.cents);
      }
    }
    const taxRaw = text(cells, f.salesTax);
    const tax = taxRaw === undefined || isBlankAmount(taxRaw) ? undefined : parseAmount(taxRaw, conv.decimalMark);
    if (tax === null) problems.push(badAmount('sales tax', taxRaw!, conv.decimalMark));
    // The money rule an edit applies too: amounts the import accepts can be saved again as they are.
    if (cents !== null && !centsWithinRule(cents)) problems.push(`amount out of range (${MONEY_RULE})`);
    if (tax && !centsWithinRule(tax.cents)) problems.push(`sales tax out of range (${MONEY_RULE})`);
    if (problems.length > 0 || !date || !description || cents === null) {
      out.rowErrors.push({ row: line, reason: problems.join('; '), raw: rawOf(cells, plan.delimiter) });
      continue;
    }
    const row: ParsedRow = { row: line, date, description, amountCents: cents === 0 ? 0 : cents };
    const code = text(cells, f.currency)?.toUpperCase();
    const rowCurrency = code && /^[A-Z]{3}$/.test(code) ? code : currency ?? plan.columnCurrency;
    if (rowCurrency) row.currency = rowCurrency;
    if (tax) row.salesTaxCents = tax.cents;
    const extra: Array<[TextField, string | undefined]> = [
      ['externalId', text(cells, f.externalId)?.replace(/^'(.+)'$/, '$1')],
      ['category', text(cells, f.category)],
      ['jobNumber', text(cells, f.jobNumber)],
      ['costCode', text(cells, f.costCode)],
      ['firstName', text(cells, f.firstName)],
      ['lastName', text(cells, f.lastName)],
      ['fullName', text(cells, f.fullName)],
    ];
    for (const [key, value] of extra) assignText(row, key, limited(value, TEXT_LABELS[key], MAX_IMPORT_TEXT_LENGTH, problems));
    if (problems.length > 0) {
      out.rowErrors.push({ row: line, reason: problems.join('; '), raw: rawOf(cells, plan.delimiter) });
      continue;
    }
    out.rows.push(row);
  }
  return out;
}

type TextField = 'externalId' | 'category' | 'jobNumber' | 'costCode' | 'firstName' | 'lastName' | 'fullName';

const TEXT_LABELS: Record<TextField, string> = {
  externalId: 'reference', category: 'category', jobNumber: 'job number', costCode: 'cost code',
  firstName: 'first name', lastName: 'last name', fullName: 'name',
};

/** The record as read for a row error, at most 200 characters (each cell cut first: a cell may be megabytes). */
function rawOf(cells: readonly string[], delimiter: string): string {
  return cells.map((c) => c.slice(0, 200)).join(delimiter).slice(0, 200);
}

function assignText(row: ParsedRow, key: TextField, value: string | undefined): void {
  if (value !== undefined) row[key] = value;
}

/**
 * Trims and unwraps Excel's ="…" text guard; line breaks and tabs inside a cell become
 * spaces. Runs of spaces are kept: card descriptors are compared as the bank printed them
 * (the duplicate key ignores them).
 */
export function cleanText(raw: string): string {
  let s = raw.trim();
  if (s.startsWith('="') && s.endsWith('"')) s = s.slice(2, -1).trim();
  return /[\t\n\r]/.test(s) ? s.replace(/\r\n|[\t\n\r]/g, ' ') : s;
}
