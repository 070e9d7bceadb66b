/**
 * Export options and settings (spec sections 3 and 9): the report types a member may choose,
 * and the zod schema every export call parses its body with (clear 400 messages).
 */
import { z } from 'zod';
import { calendarDate } from '@paperlink/domain/http/schemas';
import { GROUP_BY, PREVIEW_LIMIT, REPORT_FORMATS, REPORT_TYPES, type ReportSettings, type ReportType } from '@paperlink/domain';

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const flag = (name: string, fallback: boolean) =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : blankToUndefined(v)), z.boolean({ error: `${name} must be true or false` }).default(fallback));
const date = z.preprocess(blankToUndefined, calendarDate.optional());

export const ReportTypeParams = z.object({
  reportType: z.enum(REPORT_TYPES, { error: `Report type is one of ${REPORT_TYPES.join(', ')}` }),
});

/** Export settings (spec section 3); defaults: group by date, summary and details included. */
export const ExportSettingsBody = z
  .object({
    startDate: date,
    endDate: date,
    includeMatched: flag('includeMatched', true),
    includeUnmatched: flag('includeUnmatched', true),
    includeOCRData: flag('includeOCRData', false),
    maxPagesPerReceipt: z.preprocess(
      (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : blankToUndefined(v)),
      z.union([z.literal('all'), z.literal(1), z.literal(2), z.literal(3), z.literal(5)], { error: 'maxPagesPerReceipt is all, 1, 2, 3 or 5' }).default('all'),
    ),
    title: z.preprocess(blankToUndefined, z.string({ error: 'title must be text' }).trim().max(200, 'title is at most 200 characters').optional()),
    groupBy: z.preprocess(blankToUndefined, z.enum(GROUP_BY, { error: `groupBy is one of ${GROUP_BY.join(', ')}` }).default('date')),
    includeAnalytics: flag('includeAnalytics', false),
    includeCharts: flag('includeCharts', false),
    includeSummary: flag('includeSummary', true),
    includeDetails: flag('includeDetails', true),
  })
  .refine((s) => !s.startDate || !s.endDate || s.startDate <= s.endDate, { error: 'startDate must be on or before endDate', path: ['endDate'] });

/** A preview takes the settings plus `limit` (at most 10) and `preview: true`, and a format for the size estimate. */
export const ExportPreviewBody = z.intersection(
  ExportSettingsBody,
  z.object({
    limit: z.preprocess(blankToUndefined, z.coerce.number({ error: 'limit must be a number' }).int('limit must be a whole number').min(1, 'limit is at least 1').max(PREVIEW_LIMIT, `limit is at most ${PREVIEW_LIMIT}`).default(PREVIEW_LIMIT)),
    preview: z.unknown().optional(),
    format: z.preprocess(blankToUndefined, z.enum(REPORT_FORMATS, { error: 'format is pdf or excel' }).default('pdf')),
  }),
);

/** Checks that need the report type: transactions and receipts need matched, unmatched or both. */
export function checkSettings(type: ReportType, s: ReportSettings): void {
  if ((type === 'transactions' || type === 'receipts') && !s.includeMatched && !s.includeUnmatched) {
    throw new z.ZodError([{ code: 'custom', path: ['includeMatched'], message: 'Please select at least one option: Matched or Unmatched', input: s.includeMatched }]);
  }
}

export interface ReportTypeOption {
  id: ReportType;
  name: string;
  description: string;
  options: { dateRange: boolean };
}

const ALL_OPTIONS: ReportTypeOption[] = [
  { id: 'transactions', name: 'Transactions', description: 'Card and bank transactions with their category, cost code, job number and matched receipts.', options: { dateRange: true } },
  { id: 'receipts', name: 'Receipts', description: 'Uploaded receipts with what was read from them and whether they are matched.', options: { dateRange: true } },
  { id: 'matches', name: 'Matches', description: 'Receipts paired with transactions, confirmed and pending, with their confidence.', options: { dateRange: true } },
  { id: 'analytics', name: 'Analytics', description: "The company's figures: spending, match and processing rates, missing fields, categories.", options: { dateRange: true } },
];

/** Analytics is for admins only. */
export function reportTypesFor(role: string): ReportTypeOption[] {
  return ALL_OPTIONS.filter((o) => o.id !== 'analytics' || role === 'admin');
}
