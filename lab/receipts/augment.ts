/**
 * OCR slips of the printed total, simulated on annotated receipts so the ranker sees them often
 * enough to learn what a person does when the total line is unreadable or misread: take the
 * receipt's other evidence (the same amount paid, subtotal plus tax, cash minus change, a
 * rounded figure) over the rules' pick. On real OCR text such slips are a few receipts in a
 * hundred, too few to weigh the features that notice them (ADR 0026, "ranking gap").
 *
 * Only the training side uses these copies (`Example.trainOnly`): cross-validation never tests
 * on them and the calibration never sees them.
 */
import { findAmounts, withoutAmounts } from '../../domain/src/receipts/amounts';
import { classifyLabel } from '../../domain/src/receipts/money-lines';
import { labelForm, labelWords } from '../../domain/src/receipts/ocr-text';
import type { Layout, LayoutLine } from '../../domain/src/receipts/learned/layout';

export type TotalSlip = 'lost' | 'misread';

/** Digits tesseract mistakes for one another, the first digit of a misread total turned into its look-alike. */
const LOOK_ALIKE: Record<string, string> = { 0: '8', 1: '7', 2: '7', 3: '8', 4: '1', 5: '6', 6: '8', 7: '1', 8: '3', 9: '0' };

/**
 * The layout with the printed total slipped: the amount on the last line labelled as the total
 * (or grand total) that prints `cents` is dropped ('lost') or read with its leading digit lost,
 * or, for a one-digit figure, turned into a look-alike ('misread': 24.00 -> 4.00, 9.00 -> 0.00 is
 * skipped, 6.50 -> 8.50). Null when no such line exists or the slip would give no other amount.
 */
export function slipTotal(layout: Layout, cents: number, slip: TotalSlip): Layout | null {
  const at = layout.lines.map((l, i) => ({ l, i })).filter(({ l }) => {
    const amounts = findAmounts(l.text);
    const kind = classifyLabel(labelWords(labelForm(withoutAmounts(l.text, amounts))));
    return (kind === 'final' || kind === 'total') && amounts.some((a) => Math.abs(a.cents - cents) <= 1);
  }).pop();
  if (!at) return null;
  const amount = findAmounts(at.l.text).filter((a) => Math.abs(a.cents - cents) <= 1).pop()!;
  const printed = at.l.text.slice(amount.start, amount.end);
  let replacement = '';
  if (slip === 'misread') {
    const first = printed.search(/\d/);
    const whole = printed.slice(first).split(/[.,]/)[0]!;
    replacement = whole.length >= 2
      ? printed.slice(0, first) + printed.slice(first + 1)
      : printed.slice(0, first) + LOOK_ALIKE[printed[first]!]! + printed.slice(first + 1);
    const value = findAmounts(replacement)[0]?.cents ?? 0;
    if (value <= 0 || Math.abs(value - cents) <= 1) return null;
  }
  const text = `${at.l.text.slice(0, amount.start)}${replacement}${at.l.text.slice(amount.end)}`.replace(/\s+/g, ' ').trim();
  if (text.length === 0) return null;
  const line: LayoutLine = { ...at.l, text };
  if (at.l.parts) {
    // The amount sits in one block of the line: slip it there too.
    const k = at.l.parts.map((p) => p.includes(printed)).lastIndexOf(true);
    if (k >= 0) {
      const parts = at.l.parts.map((p, j) => (j === k ? p.slice(0, p.lastIndexOf(printed)) + replacement + p.slice(p.lastIndexOf(printed) + printed.length) : p).trim()).filter((p) => p.length > 0);
      line.parts = parts;
    }
  }
  return { ...layout, lines: layout.lines.map((l, i) => (i === at.i ? line : l)) };
}
