import { useMutation, useQuery } from '@tanstack/react-query';
import type { ExportFormat, ExportSettings } from '../rules';
import { analyticsApi, exportsApi } from './exports';

/** Keys of this screen's server state: per company and person, so a switch never shows the last one's. */
export const exportKeys = {
  options: (companyId: string | null, userId: string | null) => ['exports', 'options', companyId, userId] as const,
  quickAnalytics: (companyId: string | null, userId: string | null) => ['exports', 'quick-analytics', companyId, userId] as const,
};

/** The report types this person may export (GET /exports/options). */
export function useExportOptions(companyId: string | null, userId: string | null) {
  return useQuery({ queryKey: exportKeys.options(companyId, userId), queryFn: exportsApi.options, enabled: companyId !== null });
}

/** Admins' quick analytics; a failure leaves the card out (as the dashboard's analytics do). */
export function useQuickAnalytics(companyId: string | null, userId: string | null, enabled: boolean) {
  return useQuery({ queryKey: exportKeys.quickAnalytics(companyId, userId), queryFn: analyticsApi.quick, enabled: enabled && companyId !== null });
}

/** A preview of the records a report would hold, for the settings at the time of the click. */
export function usePreview() {
  return useMutation({ mutationFn: ({ reportType, format, settings }: { reportType: string; format: ExportFormat | null; settings: ExportSettings }) => exportsApi.preview(reportType, format, settings) });
}

/** Produces a report; `onBytes` reports how much of the file has arrived. */
export function useGenerateReport(onBytes: (received: number) => void) {
  return useMutation({
    mutationFn: ({ format, reportType, settings }: { format: ExportFormat; reportType: string; settings: ExportSettings }) => exportsApi.report(format, reportType, settings, onBytes),
  });
}
