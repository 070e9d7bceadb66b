/**
 * Which lines of a page are worth reading again, one by one (ADR 0019, "targeted second
 * reading"): for each field the first reading left missing or not confident, the lines its
 * candidates were read from, best first by the committed ranker's own score (the lines the
 * extractor weighed), plus the line the field was finally read from, and for the total any line
 * with a total label and no amount (read across the page's width), for the date the lines that
 * look like one when too few candidates were read. A line OCR'd alone, enlarged, as a single
 * text line, often reads the digits a whole-page reading slipped on; the OCR side
 * (infra/src/ocr/line-reread.ts) crops, reads and puts the line readings back in the page's
 * words, and the fields are extracted again from the mended reading.
 *
 * Pure and deterministic; about the cost of one extraction (rules + candidates, no ranking of
 * the whole receipt twice), so the product runs it where it runs extraction (off the request
 * thread).
 */
import { findAmounts, withoutAmounts } from './amounts';
import { mayHoldDate } from './dates';
import { buildCandidates } from './learned/candidates';
import type { Candidate } from './learned/candidates';
import { layoutFromOcr } from './learned/layout';
import { CONFIDENT_AT } from './learned/model';
import type { LearnedField, ReceiptModel } from './learned/model';
import { score } from './learned/ranker';
import weights from './learned/weights.json' with { type: 'json' };
import { classifyLabel, totalsWithoutAmount } from './money-lines';
import { labelForm, labelWords } from './ocr-text';
import { extractRuleFields } from './rules';
import type { ExtractOptions, OcrBox, OcrWord, ReceiptFields } from './types';

const MODEL = weights as ReceiptModel;

export type RereadField = LearnedField;

export interface RereadLine {
  /** The line's box in the words' pixels. */
  box: OcrBox;
  /** The fields this line is a candidate of. */
  fields: RereadField[];
  /**
   * Read the page's whole width at this line: a total label whose amount the page reading lost
   * (the amount is somewhere to its right, where no word was read).
   */
  wide?: boolean;
}

export interface RereadOptions {
  /** Distinct candidate lines per doubtful field, best first (default 3). */
  perField?: number;
  /** A field below this confidence is doubtful (default CONFIDENT_AT, the product's mark). */
  below?: number;
  /** Fields considered (default all three). */
  fields?: readonly RereadField[];
  /**
   * Fields to read again whatever their confidence (e.g. OCR was unsure of a digit on the line the
   * field was read from: lab/ocr/doubtful-words.ts doubtfulWordFields).
   */
  also?: readonly RereadField[];
  /** The ranker whose scores order a field's candidate lines (default the committed one; a benchmark passes a fold's). */
  model?: ReceiptModel;
}

export const REREAD_PER_FIELD = 3;

/** The fields of a reading that are missing or not confident. */
export function doubtfulFields(fields: ReceiptFields, below = CONFIDENT_AT, consider: readonly RereadField[] = ['total', 'date', 'merchant']): RereadField[] {
  return consider.filter((f) => {
    const v = fields[f];
    return !v || v.confidence < below;
  });
}

/**
 * The lines to read again for the doubtful fields of `fields` (the extraction of the same text
 * and words), at most `perField` candidate lines each plus the chosen line; lines shared by
 * fields are listed once. Empty when the words have no boxes or nothing is doubtful.
 */
export function linesToReread(text: string, words: readonly OcrWord[] | undefined, fields: ReceiptFields, options: ExtractOptions = {}, reread: RereadOptions = {}): RereadLine[] {
  const doubtful = doubtfulFields(fields, reread.below ?? CONFIDENT_AT, reread.fields);
  for (const f of reread.also ?? []) if (!doubtful.includes(f)) doubtful.push(f);
  if (doubtful.length === 0) return [];
  const layout = layoutFromOcr(text, words);
  if (!layout.geometry || layout.lines.length === 0) return [];
  const decided = { ...options, monthFirst: (fields.dateOrder?.order ?? (options.monthFirst ? 'month-first' : 'day-first')) === 'month-first' };
  const rules = extractRuleFields(text, words, decided);
  const candidates = buildCandidates(layout, rules, decided);
  const perField = reread.perField ?? REREAD_PER_FIELD;
  const picked = new Map<number, Set<RereadField>>();
  const wide = new Set<number>();
  const add = (line: number, field: RereadField): void => {
    if (line < 0 || line >= layout.lines.length) return;
    const set = picked.get(line) ?? new Set<RereadField>();
    set.add(field);
    picked.set(line, set);
  };
  for (const field of doubtful) {
    const list = candidates[field] as ReadonlyArray<Candidate<unknown>>;
    const w = (reread.model ?? MODEL).fields[field].weights;
    const ranked = list.filter((c) => c.line >= 0).map((c) => ({ c, s: score(w, c.features) })).sort((a, b) => b.s - a.s || a.c.line - b.c.line);
    const lines: number[] = [];
    for (const { c } of ranked) {
      // A merchant name wrapped over two or three lines is one candidate: all its lines.
      const span = field === 'merchant' ? 1 + (c.features.joined ?? 0) + (c.features.joined3 ?? 0) : 1;
      if (lines.includes(c.line)) continue;
      if (lines.length >= perField) break;
      lines.push(c.line);
      for (let k = 0; k < span; k++) add(c.line + k, field);
    }
    // A date the first reading could not make into one (`05-05-7015`): the lines that show one.
    if (field === 'date') {
      for (const [i, l] of layout.lines.entries()) {
        if (lines.length >= perField) break;
        if (lines.includes(i) || !mayHoldDate(l.text)) continue;
        lines.push(i);
        add(i, field);
      }
    }
    // A total label whose amount was lost (none on its line, nor alone on the next: a tax note
    // under a total has its own label).
    if (field === 'total') {
      const amounts = layout.lines.map((l) => findAmounts(l.text));
      const kinds = layout.lines.map((l, i) => classifyLabel(labelWords(labelForm(withoutAmounts(l.text, amounts[i]!)))));
      for (const i of totalsWithoutAmount(kinds, amounts.map((a) => a.length))) {
        add(i, field);
        wide.add(i);
      }
    }
    const chosen = fields.boxes?.[field];
    if (chosen) {
      const i = layout.lines.findIndex((l) => l.x0 === chosen.x0 && l.y0 === chosen.y0 && l.x1 === chosen.x1 && l.y1 === chosen.y1);
      add(i, field);
    }
  }
  return [...picked.entries()].sort((a, b) => a[0] - b[0]).map(([i, fs]) => {
    const l = layout.lines[i]!;
    return { box: { x0: l.x0, y0: l.y0, x1: l.x1, y1: l.y1 }, fields: [...fs], ...(wide.has(i) ? { wide: true } : {}) };
  });
}

/**
 * The re-read lines a second reader reads (`doubtful`, the default): those of a field still missing
 * or under CONFIDENT_AT after the first reader's line re-reading (`reread`), or that the re-reading
 * found where the page reading (`page`) had none: one line reading's find is not sure yet either.
 * `all`: every re-read line.
 */
export function linesForSecondReader(targets: readonly RereadLine[], page: ReceiptFields, reread: ReceiptFields, which: 'all' | 'doubtful' = 'doubtful'): RereadLine[] {
  if (which === 'all') return [...targets];
  const doubtful = (f: RereadField): boolean => !page[f] || (reread[f]?.confidence ?? 0) < CONFIDENT_AT;
  return targets.filter((t) => t.fields.some(doubtful));
}
