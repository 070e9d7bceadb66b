/**
 * Groups of a report's detail tables. Rows arrive sorted by the group's sort key (see
 * `groupSort`), so a group is a run of rows with the same key; subtotals close each run.
 */
import type { GroupBy, ReportRow, ReportType } from './types';

export interface GroupKey {
  key: string;
  label: string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** Amount bands (by size, in cents): the lower bound of each. */
export const AMOUNT_BANDS = [0, 2_500, 10_000, 50_000, 100_000] as const;
const BAND_LABELS = ['Under $25', '$25 to $99.99', '$100 to $499.99', '$500 to $999.99', '$1,000 and over'];

export function monthLabel(date: string): string {
  const m = Number(date.slice(5, 7));
  return m >= 1 && m <= 12 ? `${MONTHS[m - 1]} ${date.slice(0, 4)}` : 'No date';
}

export function amountBand(cents: number | null): GroupKey {
  if (cents === null) return { key: 'z', label: 'No amount' };
  const size = Math.abs(cents);
  let i = AMOUNT_BANDS.length - 1;
  while (i > 0 && size < AMOUNT_BANDS[i]!) i--;
  return { key: String(i), label: BAND_LABELS[i]! };
}

const rowDate = (row: ReportRow): string => (row.type === 'transaction' ? row.date : row.type === 'receipt' ? row.date : row.transactionDate);
const rowAmount = (row: ReportRow): number | null => (row.type === 'transaction' ? row.amountCents : row.type === 'receipt' ? row.amountCents : row.transactionAmountCents);

export function rowMerchant(row: ReportRow): string {
  const name = row.type === 'transaction' ? row.description : row.type === 'receipt' ? row.merchant : row.merchant ?? row.description;
  return name && name.trim() ? name.trim() : '(no merchant)';
}

export function rowStatus(row: ReportRow): string {
  if (row.type === 'transaction') return row.receipts.length > 0 ? 'Matched' : 'Unmatched';
  if (row.type === 'receipt') return row.matched ? 'Matched' : 'Unmatched';
  return row.status === 'confirmed' ? 'Confirmed' : 'Pending';
}

export function groupOf(row: ReportRow, by: GroupBy): GroupKey {
  switch (by) {
    case 'date': {
      const d = rowDate(row);
      return { key: d.slice(0, 7), label: monthLabel(d) };
    }
    case 'merchant': {
      const m = rowMerchant(row);
      return { key: m, label: m };
    }
    case 'amount':
      return amountBand(rowAmount(row));
    case 'status': {
      const s = rowStatus(row);
      return { key: s, label: s };
    }
  }
}

/** The read-store sort that brings each group's rows together, per report type. */
export function groupSort(type: Exclude<ReportType, 'analytics'>, by: GroupBy): Record<string, 1 | -1> {
  if (type === 'transactions') {
    return { date: { transaction_date: 1 }, merchant: { description: 1, transaction_date: 1 }, amount: { absCents: 1, transaction_date: 1 }, status: { receipt_count: 1, transaction_date: 1 } }[by] as Record<string, 1 | -1>;
  }
  if (type === 'receipts') {
    return { date: { receipt_date: 1 }, merchant: { extracted_merchant: 1, receipt_date: 1 }, amount: { absCents: 1, receipt_date: 1 }, status: { match_count: 1, receipt_date: 1 } }[by] as Record<string, 1 | -1>;
  }
  return {};
}

/** In-memory order for rows that are not read in group order (matches): by group key, then date. */
export function compareForGroup(by: GroupBy): (a: ReportRow, b: ReportRow) => number {
  return (a, b) => {
    const ka = groupOf(a, by).key;
    const kb = groupOf(b, by).key;
    if (ka !== kb) return ka < kb ? -1 : 1;
    const da = rowDate(a);
    const db = rowDate(b);
    return da < db ? -1 : da > db ? 1 : 0;
  };
}

/** Amount of a row as the subtotal sums it. */
export const subtotalCents = (row: ReportRow): number => rowAmount(row) ?? 0;

/**
 * The order `groupSort` gives, as a key of a row (first key, second key, id), for renderers that
 * order the rows themselves: compare with `compareSortKeys`.
 */
export type SortKey = [string | number, string, string];

export function sortKeyOf(row: ReportRow, by: GroupBy): SortKey {
  const date = rowDate(row);
  switch (by) {
    case 'date':
      return [date, '', row.id];
    case 'merchant':
      return [row.type === 'transaction' ? row.description : row.type === 'receipt' ? row.merchant ?? '' : rowMerchant(row), date, row.id];
    case 'amount':
      return [Math.abs(rowAmount(row) ?? 0), date, row.id];
    case 'status':
      return [rowStatus(row) === 'Unmatched' || rowStatus(row) === 'Pending' ? 0 : 1, date, row.id];
  }
}

export function compareSortKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < 3; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
