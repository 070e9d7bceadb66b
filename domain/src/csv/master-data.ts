/**
 * Master-data lists (categories, job numbers, cost codes) from CSV. The name comes from a
 * Name column, else the kind's own column (Category, Job Number, Cost Code), else Item;
 * cost codes also need a Category column. A file of one column without a recognisable
 * header is read as a bare list of names.
 */
import { cleanText } from './convert';
import { decodeCsvBytes } from './decode';
import { CsvFileError } from './errors';
import { normalizeHeader } from './header';
import { detectDelimiter, isBlankRecord, tokenize } from './tokenize';

/** The spec's limit; the caller checks the size before reading. */
export const MASTER_CSV_MAX_BYTES = 5 * 1024 * 1024;

export type MasterDataKind = 'categories' | 'job_numbers' | 'cost_codes';

export interface MasterDataRow {
  row: number;
  name: string;
  /** Cost codes only: the category the code belongs to. */
  category?: string;
}

export interface MasterDataParseResult {
  /** The header cell the names were read from, or null for a bare list. */
  nameColumn: string | null;
  rows: MasterDataRow[];
  /** Lines whose name repeats an earlier line of the file (the first is kept). */
  duplicates: { row: number; name: string; reason: string }[];
  errors: { row: number; error: string; name: string }[];
  /** Non-blank data lines read. */
  totalRows: number;
}

const NAME_ALIASES: Record<MasterDataKind, string[]> = {
  categories: ['name', 'category', 'categoryname', 'categories', 'item'],
  job_numbers: ['name', 'jobnumber', 'jobno', 'jobnum', 'job', 'jobnumbers', 'item'],
  cost_codes: ['name', 'costcode', 'costcodes', 'code', 'item'],
};
const CATEGORY_ALIASES = ['category', 'categoryname', 'costcategory'];
const KIND_LABEL: Record<MasterDataKind, string> = {
  categories: 'Category',
  job_numbers: 'Job Number',
  cost_codes: 'Cost Code',
};

export function masterDataKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export function parseMasterDataCsv(bytes: Uint8Array, kind: MasterDataKind): MasterDataParseResult {
  const { text } = decodeCsvBytes(bytes);
  const { delimiter, sepLine } = detectDelimiter(text);
  const all = tokenize(text, delimiter);
  const records = (sepLine ? all.slice(1) : all).filter((r) => !isBlankRecord(r.cells));
  const first = records[0];
  if (!first) throw new CsvFileError('empty_file', 'The file is empty.');
  const normalized = first.cells.map(normalizeHeader);
  const nameCol = findColumn(normalized, NAME_ALIASES[kind]);
  const categoryCol = kind === 'cost_codes' ? findColumn(normalized, CATEGORY_ALIASES, nameCol) : -1;
  const width = Math.max(...records.map((r) => r.cells.length));
  let data = records.slice(1);
  let column = nameCol;
  let nameColumn: string | null = first.cells[nameCol]?.trim() ?? null;
  if (nameCol < 0) {
    if (width > 1 || kind === 'cost_codes') {
      throw new CsvFileError('missing_column',
        `The CSV needs a Name column (a ${KIND_LABEL[kind]} or Item column is also accepted).`);
    }
    data = records;
    column = 0;
    nameColumn = null;
  }
  if (kind === 'cost_codes' && categoryCol < 0) {
    throw new CsvFileError('missing_column', 'The cost code CSV needs a Category column.');
  }
  if (data.length === 0) throw new CsvFileError('header_only', 'The file has a header row but no items.');
  const result: MasterDataParseResult = { nameColumn, rows: [], duplicates: [], errors: [], totalRows: data.length };
  const seen = new Map<string, number>();
  for (const { line, cells } of data) {
    const name = cleanText(cells[column] ?? '').replace(/\s+/g, ' ');
    if (name === '') {
      result.errors.push({ row: line, error: 'Name cannot be empty.', name });
      continue;
    }
    const category = categoryCol >= 0 ? cleanText(cells[categoryCol] ?? '') : undefined;
    if (category === '') {
      result.errors.push({ row: line, error: 'Category cannot be empty for a cost code.', name });
      continue;
    }
    const key = masterDataKey(name);
    const firstRow = seen.get(key);
    if (firstRow !== undefined) {
      result.duplicates.push({ row: line, name, reason: `Duplicate of row ${firstRow} in this file` });
      continue;
    }
    seen.set(key, line);
    result.rows.push(category === undefined ? { row: line, name } : { row: line, name, category });
  }
  return result;
}

function findColumn(normalized: string[], aliases: string[], except = -1): number {
  for (const alias of aliases) {
    const i = normalized.findIndex((h, k) => h === alias && k !== except);
    if (i >= 0) return i;
  }
  return -1;
}
