/**
 * Column roles guessed from content, for files whose header we cannot read (or that have
 * none): which column holds dates, which amounts, which the longest text.
 */
import { parseAmount } from './amount';
import { parseDate } from './date';
import type { CsvRecord } from './tokenize';
import { WELLS_FARGO } from './layouts';

export interface ColumnGuess {
  date?: number;
  amount?: number;
  description?: number;
}

interface ColumnStats {
  dates: number;
  amounts: number;
  letters: number;
  length: number;
  filled: number;
}

function columnStats(records: readonly CsvRecord[], width: number): ColumnStats[] {
  const stats: ColumnStats[] = Array.from({ length: width }, () => ({ dates: 0, amounts: 0, letters: 0, length: 0, filled: 0 }));
  for (const r of records.slice(0, 50)) {
    r.cells.forEach((raw, i) => {
      const s = stats[i];
      const cell = raw.trim();
      if (!s || cell === '') return;
      s.filled++;
      s.length += cell.length;
      if (parseDate(cell, 'mdy') || parseDate(cell, 'dmy')) s.dates++;
      else if (parseAmount(cell, '.') || parseAmount(cell, ',')) s.amounts++;
      else if (/\p{L}/u.test(cell)) s.letters++;
    });
  }
  return stats;
}

export function guessColumns(records: readonly CsvRecord[], width: number, taken: ReadonlySet<number> = new Set()): ColumnGuess {
  const stats = columnStats(records, width);
  const guess: ColumnGuess = {};
  const mostly = (n: number, s: ColumnStats) => s.filled > 0 && n >= s.filled * 0.8;
  const free = (i: number) => !taken.has(i);
  guess.date = stats.findIndex((s, i) => free(i) && mostly(s.dates, s));
  guess.amount = stats.findIndex((s, i) => free(i) && i !== guess.date && mostly(s.amounts, s));
  let bestLength = 0;
  stats.forEach((s, i) => {
    if (!free(i) || i === guess.date || i === guess.amount || !mostly(s.letters, s)) return;
    const avg = s.length / s.filled;
    if (avg > bestLength) {
      bestLength = avg;
      guess.description = i;
    }
  });
  if (guess.date < 0) delete guess.date;
  if (guess.amount < 0) delete guess.amount;
  return guess;
}

/** Does this record look like a transaction rather than a header (a date and an amount in it)? */
export function looksLikeData(cells: readonly string[]): boolean {
  let date = false;
  let amount = false;
  for (const raw of cells) {
    const cell = raw.trim();
    if (cell === '') continue;
    if (!date && (parseDate(cell, 'mdy') || parseDate(cell, 'dmy'))) date = true;
    else if (!amount && /\d/.test(cell) && (parseAmount(cell, '.') || parseAmount(cell, ','))) amount = true;
  }
  return date && amount;
}

/** Headerless, five columns: date, amount, '*', check number, description. */
export function isWellsFargo(records: readonly CsvRecord[]): boolean {
  const sample = records.slice(0, 20);
  if (sample.length === 0) return false;
  const fits = sample.filter((r) => r.cells.length === WELLS_FARGO.width
    && r.cells[WELLS_FARGO.star]?.trim() === '*'
    && parseDate(r.cells[WELLS_FARGO.date] ?? '', 'mdy') !== null
    && parseAmount(r.cells[WELLS_FARGO.amount] ?? '', '.') !== null);
  return fits.length >= sample.length * 0.8;
}
