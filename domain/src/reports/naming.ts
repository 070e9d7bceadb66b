/** Names and sizes people see around a report: the file name, the period, a size estimate. */
import type { ReportFormat, ReportType } from './types';

/** A file-name-safe piece: letters, digits, dots, dashes. */
export function fileSafe(text: string): string {
  return text.normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'report';
}

export function reportPeriod(startDate?: string, endDate?: string): string {
  if (startDate && endDate) return `${startDate} to ${endDate}`;
  if (startDate) return `from ${startDate}`;
  if (endDate) return `until ${endDate}`;
  return 'All dates';
}

/** `Acme-Ltd_transactions_2026-01-01_to_2026-03-31.pdf` (company, type, date range). */
export function reportFileName(company: string, type: ReportType, format: ReportFormat, startDate?: string, endDate?: string): string {
  const range = startDate || endDate ? `${startDate ?? 'start'}_to_${endDate ?? 'today'}` : 'all-dates';
  return `${fileSafe(company)}_${type}_${range}.${format === 'pdf' ? 'pdf' : 'xlsx'}`;
}

/** Bytes as the product shows file sizes (Bytes, KB, MB, GB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} Bytes`;
  const units = ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/**
 * A size estimate before the file is made (measured on this product's writers: a PDF table row
 * is about 90 bytes compressed and an embedded receipt about its file size, downscaled to at
 * most ~150 KB; an Excel row about 110 bytes zipped).
 */
export function estimateReportBytes(format: ReportFormat, rows: number, receiptFiles: { count: number; bytes: number }): number {
  if (format === 'excel') return 9_000 + rows * 110;
  return 40_000 + rows * 90 + Math.min(receiptFiles.bytes, receiptFiles.count * 150_000);
}
