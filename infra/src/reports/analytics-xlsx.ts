/**
 * The workbook of GET /analytics/export?format=xlsx: the figures of a date range as rows
 * (section, figure, value), built in a pool worker (tasks.ts `analyticsXlsx`), never on the
 * request thread: zipping a workbook is CPU work whatever its size.
 */
import ExcelJS from 'exceljs';
import type { AnalyticsSheetRow } from '@paperlink/query-api';

export const ANALYTICS_HEADER = ['Section', 'Figure', 'Value'] as const;

export async function analyticsWorkbook(rows: AnalyticsSheetRow[]): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  book.creator = 'Paperlink';
  const sheet = book.addWorksheet('Analytics');
  sheet.columns = [{ header: ANALYTICS_HEADER[0], width: 16 }, { header: ANALYTICS_HEADER[1], width: 32 }, { header: ANALYTICS_HEADER[2], width: 16 }];
  for (const r of rows) sheet.addRow(r);
  sheet.getRow(1).font = { bold: true };
  // A copy in a buffer of its own (Node's may be a slice of a pooled one), so the pool moves it back.
  return new Uint8Array((await book.xlsx.writeBuffer()) as unknown as Uint8Array);
}
