/**
 * The PDF report (pdfkit, streamed): a cover, a summary with vector charts, grouped detail
 * tables with subtotals, receipt images after their row, and page numbers. Rows are drawn as
 * they arrive (a page of the read store at a time); nothing but the running group and the
 * summary is kept, and pdfkit writes each finished page out (no buffered pages).
 */
import PDFDocument from 'pdfkit';
import { groupOf, subtotalCents, type ReportMeta, type ReportRow, type ReportSummary } from '@paperlink/domain';
import { fit, FONT_BOLD, FONT_REGULAR, money } from './format';
import type { RenderInput } from './format';
import { prepareAll, type PreparedImage } from './images';
import { drawCharts } from './pdf-charts';

type Doc = PDFKit.PDFDocument;
interface OpenedImage {
  width: number;
  height: number;
}
type WithOpenImage = Doc & { openImage(src: Buffer): OpenedImage; image(src: OpenedImage | Buffer, x: number, y: number, options: { width: number; height: number }): Doc };

const MARGIN = 36;
const ROW_H = 13;
const SIZE = 7.5;
const GREY = '#eeeeee';

interface Column {
  title: string;
  width: number;
  right?: boolean;
  value: (row: ReportRow) => string;
}

const status = (row: ReportRow) => (row.type === 'transaction' ? (row.receipts.length > 0 ? 'Matched' : 'Unmatched') : row.type === 'receipt' ? (row.matched ? 'Matched' : 'Unmatched') : row.status === 'confirmed' ? 'Confirmed' : 'Pending');

function columnsOf(meta: ReportMeta, admin: boolean): Column[] {
  const t = <K extends ReportRow['type']>(type: K, f: (r: Extract<ReportRow, { type: K }>) => string) => (row: ReportRow) => (row.type === type ? f(row as Extract<ReportRow, { type: K }>) : '');
  if (meta.type === 'receipts') {
    return [
      { title: 'Date', width: 58, value: t('receipt', (r) => r.date) },
      { title: 'File', width: 150, value: t('receipt', (r) => r.filename) },
      { title: 'Merchant', width: 150, value: t('receipt', (r) => r.merchant ?? '') },
      { title: 'Processing', width: 66, value: t('receipt', (r) => r.status) },
      { title: 'Status', width: 58, value: status },
      ...(meta.settings.includeOCRData ? [{ title: 'OCR', width: 60, value: t('receipt', (r) => (r.ocrConfidence === null ? '' : `${Math.round(r.ocrConfidence)}% ${r.ocrSource ?? ''}`)) }] : []),
      ...(admin ? [{ title: 'Uploaded by', width: 100, value: t('receipt', (r) => r.owner) }] : []),
      { title: 'Amount', width: 80, right: true, value: t('receipt', (r) => money(r.amountCents)) },
    ];
  }
  if (meta.type === 'matches') {
    return [
      { title: 'Date', width: 58, value: t('match', (r) => r.transactionDate) },
      { title: 'Transaction', width: 190, value: t('match', (r) => r.description) },
      { title: 'Receipt', width: 140, value: t('match', (r) => r.receiptFilename) },
      { title: 'Merchant', width: 120, value: t('match', (r) => r.merchant ?? '') },
      { title: 'Confidence', width: 60, right: true, value: t('match', (r) => `${Math.round(r.confidence)}%`) },
      { title: 'Status', width: 64, value: status },
      { title: 'Receipt total', width: 60, right: true, value: t('match', (r) => money(r.receiptAmountCents)) },
      { title: 'Amount', width: 70, right: true, value: t('match', (r) => money(r.transactionAmountCents)) },
    ];
  }
  return [
    { title: 'Date', width: 58, value: t('transaction', (r) => r.date) },
    { title: 'Description', width: admin ? 190 : 260, value: t('transaction', (r) => r.description) },
    { title: 'Category', width: 100, value: t('transaction', (r) => r.category ?? '') },
    { title: 'Cost code', width: 70, value: t('transaction', (r) => r.costCode ?? '') },
    { title: 'Job number', width: 70, value: t('transaction', (r) => r.jobNumber ?? '') },
    ...(admin ? [{ title: 'Created by', width: 90, value: t('transaction', (r) => r.owner) }] : []),
    { title: 'Status', width: 56, value: status },
    { title: 'Amount', width: 76, right: true, value: t('transaction', (r) => money(r.amountCents)) },
  ];
}

export type PdfInput = RenderInput;

export async function writePdf({ meta, admin, summary, rows, out, drained, keepPrintCopy }: PdfInput): Promise<void> {
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, autoFirstPage: false, bufferPages: false, compress: true, info: { Title: meta.title, Author: meta.generatedBy, Subject: `${meta.company}: ${meta.period}`, Creator: 'Paperlink' } }) as WithOpenImage;
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    doc.on('error', reject);
  });
  // Awaited at the end; an abort midway must not leave it rejected and unhandled (that ends the worker).
  done.catch(() => {});
  doc.pipe(out);
  doc.registerFont('body', FONT_REGULAR);
  doc.registerFont('bold', FONT_BOLD);
  let pageNo = 0;
  doc.on('pageAdded', () => {
    pageNo++;
    const { x, y } = doc;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('body').fontSize(7).fillColor('#666666');
    const footer = `${fit(meta.company, 60)} · ${fit(meta.title, 60)} · ${meta.period}`;
    doc.text(footer, MARGIN, doc.page.height - 22, { lineBreak: false });
    const label = `Page ${pageNo}`;
    doc.text(label, doc.page.width - MARGIN - doc.widthOfString(label), doc.page.height - 22, { lineBreak: false });
    doc.page.margins.bottom = bottom;
    doc.fillColor('black');
    doc.x = x;
    doc.y = y;
  });
  const right = () => doc.page.width - MARGIN;
  const bottom = () => doc.page.height - MARGIN - 10;

  // Cover.
  doc.addPage();
  doc.font('bold').fontSize(26).text(meta.title, MARGIN, 150, { width: right() - MARGIN });
  doc.moveDown(0.6).font('body').fontSize(14).text(meta.company);
  doc.moveDown(0.4).fontSize(11).fillColor('#333333');
  doc.text(`Period: ${meta.period}`);
  doc.text(`Report: ${meta.type}${meta.settings.includeDetails && meta.type !== 'analytics' ? `, grouped by ${meta.settings.groupBy}` : ''}`);
  doc.text(`Generated by ${meta.generatedBy} on ${meta.generatedAt.slice(0, 16).replace('T', ' ')} UTC`);
  if (summary) doc.text(`Records: ${meta.type === 'receipts' ? summary.receipts.count : meta.type === 'matches' ? summary.matches.count : summary.transactions.count}`);
  doc.fillColor('black');

  if (summary && (meta.settings.includeSummary || meta.type === 'analytics')) writeSummary(doc, meta, summary, admin);
  if (summary && (meta.settings.includeCharts || (meta.type === 'analytics' && meta.settings.includeAnalytics))) {
    doc.addPage();
    drawCharts(doc, meta, summary, { left: MARGIN, top: MARGIN, right: right(), bottom: bottom() });
  }

  if (meta.settings.includeDetails && meta.type !== 'analytics') {
    const columns = columnsOf(meta, admin);
    const scale = (right() - MARGIN) / columns.reduce((s, c) => s + c.width, 0);
    for (const c of columns) c.width *= scale;
    doc.addPage();
    doc.font('bold').fontSize(14).text(`Details, grouped by ${meta.settings.groupBy}`, MARGIN, MARGIN);
    let y = doc.y + 6;
    const header = () => {
      doc.rect(MARGIN, y, right() - MARGIN, ROW_H).fill('#333333');
      doc.fillColor('white').font('bold').fontSize(SIZE);
      let x = MARGIN;
      for (const c of columns) {
        cell(c.title, x, y, c);
        x += c.width;
      }
      doc.fillColor('black');
      y += ROW_H;
    };
    const cell = (text: string, x: number, yy: number, c: Column) => {
      const s = fit(text, Math.floor((c.width - 6) / (SIZE * 0.6)));
      const at = c.right ? x + c.width - 3 - doc.widthOfString(s) : x + 3;
      doc.text(s, at, yy + 3, { lineBreak: false });
    };
    /** A new page when `height` does not fit; rows are never split. */
    const room = (height: number, withHeader = true) => {
      if (y + height <= bottom()) return;
      doc.addPage();
      y = MARGIN;
      if (withHeader) header();
    };
    let group: { key: string; label: string; count: number; cents: number } | null = null;
    const closeGroup = () => {
      if (!group) return;
      room(ROW_H + 4);
      doc.rect(MARGIN, y, right() - MARGIN, ROW_H).fill(GREY).fillColor('black').font('bold').fontSize(SIZE);
      doc.text(`Subtotal ${fit(group.label, 60)}: ${group.count} record${group.count === 1 ? '' : 's'}`, MARGIN + 3, y + 3, { lineBreak: false });
      const total = money(group.cents);
      doc.text(total, right() - 3 - doc.widthOfString(total), y + 3, { lineBreak: false });
      y += ROW_H + 8;
      group = null;
    };
    let zebra = false;
    // The next page's receipt files are prepared (sharp and pdfjs, on libuv threads) while this page is drawn.
    const prepare = (page: ReportRow[]) => prepareAll(page.flatMap((r) => (r.type === 'match' ? [] : r.attachments)), meta.settings.maxPagesPerReceipt);
    const pages = rows[Symbol.asyncIterator]();
    let ahead = await pages.next();
    let aheadImages = ahead.done ? null : prepare(ahead.value);
    while (!ahead.done) {
      const page = ahead.value;
      const images = await aheadImages!;
      // Copies made for receipts that had none go back to be kept: the next report reuses them.
      for (const img of images) if (img.made) keepPrintCopy?.(img.made.sha256, img.made.copy);
      ahead = await pages.next();
      aheadImages = ahead.done ? null : prepare(ahead.value);
      let nextImage = 0;
      for (const row of page) {
        const g = groupOf(row, meta.settings.groupBy);
        if (!group || group.key !== g.key) {
          closeGroup();
          room(ROW_H * 3 + 6, false);
          doc.font('bold').fontSize(10).fillColor('black').text(fit(g.label, 100), MARGIN, y + 2, { lineBreak: false });
          y += 16;
          header();
          group = { key: g.key, label: g.label, count: 0, cents: 0 };
        }
        const parts = splitLines(row);
        // The row and its split lines stay together on a page.
        room(ROW_H * (1 + parts.length));
        if (zebra) doc.rect(MARGIN, y, right() - MARGIN, ROW_H).fill('#f7f7f7');
        zebra = !zebra;
        doc.fillColor('black').font('body').fontSize(SIZE);
        let x = MARGIN;
        for (const c of columns) {
          cell(c.value(row), x, y, c);
          x += c.width;
        }
        y += ROW_H;
        if (parts.length > 0) {
          doc.fillColor('#444444').font('body').fontSize(SIZE - 0.5);
          for (const line of parts) {
            let px = MARGIN;
            for (const c of columns) {
              cell(line[c.title] ?? '', px, y - 2, c);
              px += c.width;
            }
            y += ROW_H - 2;
          }
          y += 2;
          doc.fillColor('black');
        }
        group.count++;
        group.cents += subtotalCents(row);
        if (row.type !== 'match') {
          for (let i = 0; i < row.attachments.length; i++) {
            const prepared = images[nextImage++]!;
            const after = drawReceipt(doc, prepared, y, bottom(), MARGIN + 20);
            y = after.y;
            if (after.newPage) header();
          }
        }
      }
      await drained();
    }
    closeGroup();
  }
  doc.end();
  await done;
}

/**
 * The lines drawn under a split transaction's row, by column title: one per part (its category,
 * cost code, job number and amount), or, when the amount changed after the split was saved (a
 * stale split, counted nowhere: ADR 0014), the parts with a line saying so.
 */
export function splitLines(row: ReportRow): Array<Record<string, string>> {
  if (row.type !== 'transaction' || !row.split || row.split.parts.length === 0) return [];
  const { parts, totalCents } = row.split;
  const stale = totalCents !== row.amountCents;
  const lines = parts.map((p, i): Record<string, string> => ({
    Description: `   Split ${i + 1} of ${parts.length}${p.note ? `: ${p.note}` : ''}`,
    Category: p.category,
    'Cost code': p.costCode,
    'Job number': p.jobNumber,
    Amount: money(p.amountCents),
  }));
  if (stale) lines.push({ Description: `   Split saved for ${money(totalCents)}: the amount changed since, not counted` });
  return lines;
}

/** A receipt's pages under its row: each scaled into the space left, or on a new page. */
function drawReceipt(doc: WithOpenImage, img: PreparedImage, y0: number, bottom: number, left: number): { y: number; newPage: boolean } {
  let y = y0 + 3;
  let newPage = false;
  const caption = (text: string) => {
    doc.font('body').fontSize(7).fillColor('#555555').text(text, left, y, { lineBreak: false });
    doc.fillColor('black');
    y += 10;
  };
  if (img.pages.length === 0) {
    caption(`Receipt ${fit(img.filename, 80)}: ${img.error ?? 'no image'}`);
    return { y, newPage };
  }
  const boxW = 300;
  const boxH = 380;
  img.pages.forEach((bytes, i) => {
    const opened = doc.openImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const scale = Math.min(boxW / opened.width, boxH / opened.height, 1);
    const w = opened.width * scale;
    const h = opened.height * scale;
    if (y + h + 12 > bottom) {
      doc.addPage();
      y = MARGIN;
      newPage = true;
    }
    caption(`Receipt ${fit(img.filename, 80)}${img.pages.length > 1 ? `, page ${i + 1} of ${img.pages.length}` : ''}`);
    doc.image(opened, left, y, { width: w, height: h });
    doc.rect(left, y, w, h).lineWidth(0.5).stroke('#999999');
    y += h + 6;
  });
  // The table continues under the images, with its header again when they moved to a new page.
  if (y + ROW_H * 2 > bottom) {
    doc.addPage();
    y = MARGIN;
    newPage = true;
  }
  return { y: y + 2, newPage };
}

function writeSummary(doc: Doc, meta: ReportMeta, s: ReportSummary, admin: boolean): void {
  doc.addPage();
  doc.font('bold').fontSize(16).text('Summary', MARGIN, MARGIN);
  doc.moveDown(0.5);
  const t = s.transactions;
  const lines: Array<[string, string]> = [];
  if (meta.type === 'transactions' || meta.type === 'analytics') {
    lines.push(
      ['Transactions', String(t.count)],
      ['Total expenses', money(t.expenseCents)],
      ['Credits', money(t.creditCents)],
      ['Net total', money(t.netCents)],
      ['Sales tax', money(t.salesTaxCents)],
      ['Matched', `${t.matched.count} (${money(t.matched.expenseCents)} of expenses)`],
      ['Unmatched', `${t.unmatched.count} (${money(t.unmatched.expenseCents)} of expenses)`],
      ['Match rate (by expenses)', `${s.dashboard.financial.matchRate}%`],
      ['Incomplete transactions', `${t.incomplete} (completion ${t.completionRate}%)`],
    );
  }
  if (meta.type === 'receipts' || meta.type === 'analytics') {
    lines.push(
      ['Receipts', String(s.receipts.count)],
      ['Receipt totals', money(s.receipts.totalCents)],
      ['Processed', `${s.receipts.processed} (${s.receipts.processingRate}%)`],
      ['Matched receipts', `${s.receipts.matched} (${s.receipts.matchRate}%)`],
      ['Unmatched receipts', String(s.receipts.count - s.receipts.matched)],
    );
  }
  if (meta.type === 'matches' || meta.type === 'analytics') {
    lines.push(['Matches', String(s.matches.count)], ['Confirmed', String(s.matches.confirmed)], ['Pending', String(s.matches.pending)], ['Average confidence', `${s.matches.averageConfidence}%`]);
  }
  if (admin && meta.settings.includeAnalytics && meta.type === 'transactions') {
    const f = s.dashboard.financial;
    const m = s.dashboard.missingFields;
    lines.push(
      ['Matched expenses', money(Math.round(f.matchedExpenses * 100))],
      ['Unmatched expenses', money(Math.round(f.unmatchedExpenses * 100))],
      ['Missing category', `${m.missingCategory} (${m.missingCategoryPercentage}%)`],
      ['Missing job number', `${m.missingJobNumber} (${m.missingJobNumberPercentage}%)`],
      ['Missing cost code', `${m.missingCostCode} (${m.missingCostCodePercentage}%)`],
    );
  }
  if (meta.type === 'analytics') {
    const p = s.dashboard.processing;
    const m = s.dashboard.missingFields;
    lines.push(
      ['Processing rate', `${p.processingRate}%`],
      ['Receipt match rate', `${p.matchRate}%`],
      ['Average receipt', money(Math.round(p.avgAmount * 100))],
      ['Receipts this week', String(p.receiptsThisWeek)],
      ['Missing description', `${m.missingDescription} (${m.missingDescriptionPercentage}%)`],
      ['Missing category', `${m.missingCategory} (${m.missingCategoryPercentage}%)`],
      ['Missing job number', `${m.missingJobNumber} (${m.missingJobNumberPercentage}%)`],
      ['Missing cost code', `${m.missingCostCode} (${m.missingCostCodePercentage}%)`],
    );
  }
  let y = doc.y;
  const half = lines.length > 14 ? Math.ceil(lines.length / 2) : lines.length;
  lines.forEach(([k, v], i) => {
    const x = i < half ? MARGIN : MARGIN + 380;
    const yy = y + (i % half) * 15;
    doc.font('body').fontSize(9).text(k, x, yy, { lineBreak: false });
    doc.font('bold').text(v, x + 160, yy, { lineBreak: false });
  });
  y += half * 15 + 12;
  if (meta.type === 'transactions' || meta.type === 'analytics') {
    const tables: Array<[string, typeof t.byCategory]> = [['By category', t.byCategory], ['By cost code', t.byCostCode], ['By job number', t.byJobNumber]];
    const colW = (doc.page.width - 2 * MARGIN - 20) / 3;
    let maxY = y;
    tables.forEach(([title, list], i) => {
      const x = MARGIN + i * (colW + 10);
      let yy = y;
      doc.font('bold').fontSize(10).text(title, x, yy, { lineBreak: false });
      yy += 14;
      const shown = list.slice(0, 25);
      const rest = list.slice(25);
      const rowsOf = [...shown.map((b) => [b.key, String(b.count), money(b.totalCents)]), ...(rest.length ? [[`Other (${rest.length})`, String(rest.reduce((a, b) => a + b.count, 0)), money(rest.reduce((a, b) => a + b.totalCents, 0))]] : [])];
      for (const [k, n, v] of rowsOf) {
        if (yy + 12 > doc.page.height - MARGIN - 10) break;
        doc.font('body').fontSize(8).text(fit(k!, 28), x, yy, { lineBreak: false });
        doc.text(n!, x + colW - 110, yy, { lineBreak: false });
        doc.text(v!, x + colW - doc.widthOfString(v!), yy, { lineBreak: false });
        yy += 11;
      }
      maxY = Math.max(maxY, yy);
    });
    doc.y = maxY;
  }
}
