import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { defaultFilename, exportBody, filenameFromDisposition, PREVIEW_LIMIT, type ExportFormat, type ExportSettings } from '../rules';

export const ReportTypeSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional().default(''),
  options: z.object({ dateRange: z.unknown().optional() }).passthrough().optional(),
});
export type ReportType = z.infer<typeof ReportTypeSchema>;
export const ExportOptionsSchema = z.object({ reportTypes: z.array(ReportTypeSchema) });

export const PreviewSchema = z.object({
  totalRecords: z.number(),
  dateRange: z.unknown().optional(),
  estimatedSize: z.union([z.number(), z.string()]).optional(),
  records: z.array(z.record(z.string(), z.unknown())).optional().default([]),
});
export type Preview = z.infer<typeof PreviewSchema>;

export interface ReportFile {
  blob: Blob;
  filename: string;
}

/** Spec section 7, exports and analytics. */
export const exportsApi = {
  async options(): Promise<ReportType[]> {
    return ExportOptionsSchema.parse((await api.get('/exports/options')).data).reportTypes;
  },
  /** The format only shapes the size estimate. */
  async preview(reportType: string, format: ExportFormat | null, settings: ExportSettings): Promise<Preview> {
    const res = await api.post(`/exports/preview/${encodeURIComponent(reportType)}`, { ...exportBody(settings), limit: PREVIEW_LIMIT, preview: true, ...(format ? { format } : {}) });
    return PreviewSchema.parse(res.data);
  },
  /** The report as a file: its bytes and the name the server gives it. */
  async report(format: ExportFormat, reportType: string, settings: ExportSettings, onBytes?: (received: number) => void): Promise<ReportFile> {
    const res = await api.post(`/exports/${format}/${encodeURIComponent(reportType)}`, exportBody(settings), {
      responseType: 'blob',
      ...(onBytes ? { onDownloadProgress: (e: { loaded: number }) => onBytes(e.loaded) } : {}),
    });
    const header = (res.headers as Record<string, unknown>)['content-disposition'];
    return { blob: res.data as Blob, filename: filenameFromDisposition(typeof header === 'string' ? header : null, defaultFilename(format)) };
  },
};

/** Admin quick analytics: the company's figures from the analytics dashboard (spec section 3). */
export const QuickAnalyticsSchema = z.object({
  financial: z.object({ totalExpenses: z.number(), matchedExpenses: z.number(), unmatchedExpenses: z.number(), matchRate: z.number() }).partial().passthrough(),
  processing: z.object({ totalReceipts: z.number(), processedReceipts: z.number(), matchedReceipts: z.number(), confirmedMatches: z.number() }).partial().passthrough().optional(),
}).passthrough();
export type QuickAnalytics = z.infer<typeof QuickAnalyticsSchema>;

export const analyticsApi = {
  async quick(): Promise<QuickAnalytics> {
    return QuickAnalyticsSchema.parse((await api.get('/analytics/dashboard')).data);
  },
};

/** Saves a blob under a name; the temporary link is revoked after 1 second (spec section 9). */
export function saveFile(file: ReportFile): void {
  const url = URL.createObjectURL(file.blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
