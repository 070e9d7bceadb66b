/** Shared types of the CSV import rules (bank statements and master-data lists). */
import type { Cents } from '../core/money';

export type DateOrder = 'dmy' | 'mdy';
export type AmountSign = 'expense-negative' | 'expense-positive';
export type CsvEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252';
export type CsvDelimiter = ',' | ';' | '\t';

/** One transaction line as the bank meant it: negative amount = expense (debit). */
export interface ParsedRow {
  /** 1-based line number in the file where the record starts. */
  row: number;
  /** 'YYYY-MM-DD' */
  date: string;
  description: string;
  amountCents: Cents;
  externalId?: string;
  salesTaxCents?: Cents;
  /** ISO 4217 code when the file says (a Currency column, a symbol or code on the amount). */
  currency?: string;
  category?: string;
  jobNumber?: string;
  costCode?: string;
  firstName?: string;
  lastName?: string;
  fullName?: string;
}

export interface RowError {
  row: number;
  reason: string;
  /** The record as read, cells joined by the delimiter (cut at 200 characters). */
  raw?: string;
}

/** A line read on purpose as not being a transaction (opening balance, a declined card payment). */
export interface IgnoredRow {
  row: number;
  reason: string;
}

/** A user's column choice for a layout we could not recognise: zero-based column indexes. */
export interface ColumnMapping {
  date: number;
  description: number;
  /** One signed amount column, or debit and/or credit (unsigned) columns. */
  amount?: number;
  debit?: number;
  credit?: number;
  category?: number;
  jobNumber?: number;
  costCode?: number;
  firstName?: number;
  lastName?: number;
  fullName?: number;
  externalId?: number;
  salesTax?: number;
  currency?: number;
  dateOrder: 'auto' | DateOrder;
  amountSign: AmountSign;
}

export interface NeedsMapping {
  /** Header cells, or 'Column 1', 'Column 2', … for a file without a header row. */
  header: string[];
  /** The first (up to) 10 data records. */
  preview: string[][];
  suggested: Partial<ColumnMapping>;
}

export interface StatementParseResult {
  /** 'paperlink', 'chase-card', 'amex', 'capital-one', 'bank-of-america-checking', 'wells-fargo', 'revolut', …, 'generic', 'european', 'custom', 'unknown' */
  layout: string;
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  /** The header row as written, or null for a file without one. */
  header: string[] | null;
  /** Normalised signature of the header, to remember a user's manual mapping. */
  headerKey: string;
  /** The date order used (decided from the whole file, else the layout's convention). */
  dateOrder: DateOrder;
  /** The decimal mark used for amounts. */
  decimalMark: '.' | ',';
  /** How the file wrote expenses (rows are always expense-negative). */
  amountSign: AmountSign;
  rows: ParsedRow[];
  rowErrors: RowError[];
  ignoredRows: IgnoredRow[];
  needsMapping?: NeedsMapping;
}

export interface StatementParseOptions {
  mapping?: ColumnMapping;
  /** Transactions one import takes at most: a file with more data lines is refused, saying both figures. */
  maxRows?: number;
}
