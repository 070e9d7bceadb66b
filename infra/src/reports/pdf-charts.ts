/** Charts of a PDF report, drawn as vectors (rectangles and text), never as pictures. */
import type { ReportMeta, ReportSummary } from '@paperlink/domain';
import { monthLabel } from '@paperlink/domain';
import { fit, money } from './format';

type Doc = PDFKit.PDFDocument;
interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const BLUE = '#2f6db5';
const GREEN = '#2e8b57';
const RED = '#c0392b';

/** Vertical bars with labels under them and values over them. */
function bars(doc: Doc, title: string, items: Array<{ label: string; value: number; text: string }>, box: Box, color: string): void {
  doc.font('bold').fontSize(11).fillColor('black').text(title, box.left, box.top, { lineBreak: false });
  const top = box.top + 22;
  const base = box.bottom - 24;
  const max = Math.max(1, ...items.map((i) => i.value));
  const slot = (box.right - box.left) / Math.max(1, items.length);
  const w = Math.max(2, Math.min(40, slot * 0.7));
  doc.moveTo(box.left, base).lineTo(box.right, base).lineWidth(0.5).stroke('#999999');
  items.forEach((item, i) => {
    const h = ((base - top - 12) * item.value) / max;
    const x = box.left + i * slot + (slot - w) / 2;
    if (h > 0) doc.rect(x, base - h, w, h).fill(color);
    doc.fillColor('black').font('body').fontSize(6);
    if (items.length <= 24) {
      doc.text(fit(item.text, 12), x - 10, base - h - 9, { width: w + 20, align: 'center', lineBreak: false });
      doc.text(fit(item.label, 14), x - 10, base + 4, { width: w + 20, align: 'center', lineBreak: false });
    }
  });
}

/** Horizontal bars (one per category), largest first. */
function hbars(doc: Doc, title: string, items: Array<{ label: string; value: number; text: string }>, box: Box, color: string): void {
  doc.font('bold').fontSize(11).fillColor('black').text(title, box.left, box.top, { lineBreak: false });
  const labelW = 120;
  const max = Math.max(1, ...items.map((i) => i.value));
  const rowH = Math.min(18, (box.bottom - box.top - 22) / Math.max(1, items.length));
  items.forEach((item, i) => {
    const y = box.top + 22 + i * rowH;
    const w = ((box.right - box.left - labelW - 70) * item.value) / max;
    doc.fillColor('black').font('body').fontSize(7).text(fit(item.label, 26), box.left, y + 2, { lineBreak: false });
    if (w > 0) doc.rect(box.left + labelW, y, w, rowH * 0.7).fill(color);
    doc.fillColor('black').text(item.text, box.left + labelW + w + 4, y + 2, { lineBreak: false });
  });
}

/** Matched against unmatched, as one split bar with a legend. */
function split(doc: Doc, title: string, a: { label: string; value: number }, b: { label: string; value: number }, box: Box): void {
  doc.font('bold').fontSize(11).fillColor('black').text(title, box.left, box.top, { lineBreak: false });
  const total = a.value + b.value;
  const y = box.top + 24;
  const width = box.right - box.left;
  const wa = total > 0 ? (width * a.value) / total : 0;
  if (wa > 0) doc.rect(box.left, y, wa, 18).fill(GREEN);
  if (width - wa > 0 && total > 0) doc.rect(box.left + wa, y, width - wa, 18).fill(RED);
  doc.font('body').fontSize(8).fillColor('black');
  doc.rect(box.left, y + 26, 8, 8).fill(GREEN).fillColor('black').text(`${a.label}: ${a.value}`, box.left + 12, y + 26, { lineBreak: false });
  doc.rect(box.left + 160, y + 26, 8, 8).fill(RED).fillColor('black').text(`${b.label}: ${b.value}`, box.left + 172, y + 26, { lineBreak: false });
}

export function drawCharts(doc: Doc, meta: ReportMeta, s: ReportSummary, box: Box): void {
  doc.font('bold').fontSize(16).fillColor('black').text('Charts', box.left, box.top, { lineBreak: false });
  const top = box.top + 28;
  const mid = (box.left + box.right) / 2;
  const midY = top + (box.bottom - top) / 2;
  const t = s.transactions;
  if (meta.type === 'receipts') {
    bars(doc, 'Receipts by processing status', s.receipts.byStatus.map((b) => ({ label: b.key, value: b.count, text: String(b.count) })), { left: box.left, top, right: mid - 20, bottom: midY }, BLUE);
    split(doc, 'Matched and unmatched receipts', { label: 'Matched', value: s.receipts.matched }, { label: 'Unmatched', value: s.receipts.count - s.receipts.matched }, { left: mid + 20, top, right: box.right, bottom: midY });
    return;
  }
  if (meta.type === 'matches') {
    split(doc, 'Confirmed and pending matches', { label: 'Confirmed', value: s.matches.confirmed }, { label: 'Pending', value: s.matches.pending }, { left: box.left, top, right: box.right, bottom: midY });
    return;
  }
  const months = t.byMonth.slice(-24).map((b) => ({ label: monthLabel(`${b.key}-01`).replace(/^(\w{3})\w* /, '$1 '), value: Math.max(0, -b.totalCents), text: money(Math.max(0, -b.totalCents)).replace(/\.\d\d$/, '') }));
  bars(doc, 'Expenses by month', months, { left: box.left, top, right: box.right, bottom: midY - 10 }, BLUE);
  const cats = s.dashboard.categories.slice(0, 10).map((c) => ({ label: c.category, value: c.total_amount, text: money(Math.round(c.total_amount * 100)) }));
  hbars(doc, 'Expenses by category', cats, { left: box.left, top: midY + 10, right: mid - 10, bottom: box.bottom }, BLUE);
  split(doc, 'Matched and unmatched transactions', { label: 'Matched', value: t.matched.count }, { label: 'Unmatched', value: t.unmatched.count }, { left: mid + 10, top: midY + 10, right: box.right, bottom: box.bottom });
}
