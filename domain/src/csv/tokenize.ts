/**
 * A small RFC 4180 reader that keeps the line number where each record starts (csv-parse
 * reports where records end, and costs twice as much with that information on). It is
 * lenient the way spreadsheet exports need: CR, LF or CRLF line ends, quotes inside
 * unquoted cells kept as written, text after a closing quote kept, and a quote that is
 * never closed (or only "closes" lines later, in the middle of a cell) read as a literal
 * character instead of swallowing the following lines.
 */
import type { CsvDelimiter } from './types';

export interface CsvRecord {
  /** 1-based line number of the record's first line. */
  line: number;
  cells: string[];
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

export function tokenize(text: string, delimiter: string, maxRecords = Infinity): CsvRecord[] {
  const delim = delimiter.charCodeAt(0);
  const records: CsvRecord[] = [];
  const len = text.length;
  let i = 0;
  let line = 1;
  while (i < len && records.length < maxRecords) {
    const startLine = line;
    const cells: string[] = [];
    let endOfRecord = false;
    while (!endOfRecord) {
      let value: string;
      if (text.charCodeAt(i) === QUOTE) {
        const closed = readQuoted(text, i + 1, delim);
        if (closed !== null) {
          value = closed;
          line += quotedNewlines;
          i = quotedNext;
        } else {
          // Unclosed quote: read the cell as if unquoted.
          const end = scanUnquoted(text, i, delim);
          value = text.slice(i, end);
          i = end;
        }
      } else {
        const end = scanUnquoted(text, i, delim);
        value = text.slice(i, end);
        i = end;
      }
      cells.push(value);
      const c = i < len ? text.charCodeAt(i) : -1;
      if (c === delim) {
        i++;
      } else {
        endOfRecord = true;
        if (c === CR) i += text.charCodeAt(i + 1) === LF ? 2 : 1;
        else if (c === LF) i++;
        line++;
      }
    }
    records.push({ line: startLine, cells });
  }
  return records;
}

function scanUnquoted(text: string, from: number, delim: number): number {
  let i = from;
  const len = text.length;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === delim || c === LF || c === CR) break;
    i++;
  }
  return i;
}

// Side results of readQuoted (one allocation less per quoted cell).
let quotedNext = 0;
let quotedNewlines = 0;

/**
 * From just after an opening quote: the cell's value, with the position after it in
 * `quotedNext` and the line breaks it spans in `quotedNewlines`; null when the quote is
 * never closed.
 */
function readQuoted(text: string, from: number, delim: number): string | null {
  let value = '';
  let chunkStart = from;
  let newlines = 0;
  let i = from;
  const len = text.length;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return null;
    for (let k = i; k < q; k++) {
      const c = text.charCodeAt(k);
      if (c === LF || (c === CR && text.charCodeAt(k + 1) !== LF)) newlines++;
    }
    if (text.charCodeAt(q + 1) === QUOTE) {
      value += text.slice(chunkStart, q + 1);
      i = q + 2;
      chunkStart = i;
      continue;
    }
    value += text.slice(chunkStart, q);
    const end = q + 1 < len ? scanUnquoted(text, q + 1, delim) : q + 1;
    // A "cell" that ran over a line end and closes in the middle of text was a stray quote
    // pairing with one on a later line: read the opening quote as a character instead.
    if (newlines > 0 && end > q + 1) return null;
    // Otherwise anything between the closing quote and the delimiter is kept (lenient).
    value += text.slice(q + 1, end);
    quotedNext = end;
    quotedNewlines = newlines;
    return value;
  }
}

const CANDIDATES: CsvDelimiter[] = [',', ';', '\t'];

/**
 * The delimiter that splits the first lines into the most records of one same width (of
 * at least two cells); ties go to the wider split. An Excel `sep=;` first line wins outright.
 * Returns the width too: 1 means no candidate splits the text.
 */
export function detectDelimiter(text: string): { delimiter: CsvDelimiter; width: number; sepLine: boolean } {
  const sep = /^sep=(.)\r?\n/i.exec(text.slice(0, 8));
  const declared = sep ? CANDIDATES.find((d) => d === sep[1]) : undefined;
  if (declared) return { delimiter: declared, width: 2, sepLine: true };
  const sample = text.slice(0, 64 * 1024);
  let best: { delimiter: CsvDelimiter; width: number; score: number } = { delimiter: ',', width: 1, score: -1 };
  for (const delimiter of CANDIDATES) {
    const widths = tokenize(sample, delimiter, 60)
      .filter((r) => !(r.cells.length === 1 && r.cells[0]?.trim() === ''))
      .map((r) => r.cells.length);
    const counts = new Map<number, number>();
    for (const w of widths) counts.set(w, (counts.get(w) ?? 0) + 1);
    let width = 1;
    let score = 0;
    for (const [w, count] of counts) {
      if (w < 2) continue;
      if (count > score || (count === score && w > width)) {
        width = w;
        score = count;
      }
    }
    if (score > best.score || (score === best.score && width > best.width)) best = { delimiter, width, score };
  }
  return { delimiter: best.delimiter, width: best.score > 0 ? best.width : 1, sepLine: false };
}

export function isBlankRecord(cells: string[]): boolean {
  for (const c of cells) if (c.trim() !== '') return false;
  return true;
}
