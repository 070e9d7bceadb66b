import axios from 'axios';
import { z } from 'zod';
import { api } from '../../../lib/api-client';

const Detail = z.object({
  row: z.number(),
  description: z.string(),
  providedName: z.string().nullable(),
  assignedTo: z.string(),
  assignedToName: z.string().nullable().optional(),
  status: z.enum(['name_matched', 'no_match_found', 'no_names_provided', 'error']),
});

export const ImportResultSchema = z.object({
  imported: z.number(),
  skipped: z.number(),
  total: z.number(),
  rejected: z.number().optional(),
  alreadyImported: z.boolean().optional(),
  layout: z.string().optional(),
  fileName: z.string().optional(),
  userMatching: z.object({ matched: z.number(), unmatched: z.number(), adminAssigned: z.number(), details: z.array(Detail) }),
  rowErrors: z.array(z.object({ row: z.number(), reason: z.string() })).optional(),
  duplicates: z.array(z.object({ row: z.number(), description: z.string(), reason: z.string() })).optional(),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** The server could not recognise the header: it sends the columns, a preview and its guesses. */
export const NeedsMappingSchema = z.object({
  header: z.array(z.string()),
  preview: z.array(z.array(z.string())),
  suggested: z.record(z.string(), z.union([z.number(), z.string()])),
  headerKey: z.string(),
});
export type NeedsMapping = z.infer<typeof NeedsMappingSchema>;

/** The roles a column can play, in the order the mapping form shows them. */
export const MAPPING_FIELDS = [
  ['date', 'Transaction Date', true],
  ['description', 'Description', true],
  ['amount', 'Amount (signed)', false],
  ['debit', 'Debit (money out)', false],
  ['credit', 'Credit (money in)', false],
  ['category', 'Category', false],
  ['jobNumber', 'Job Number', false],
  ['costCode', 'Cost Code', false],
  ['firstName', 'First Name', false],
  ['lastName', 'Last Name', false],
  ['fullName', 'Name', false],
  ['externalId', 'Transaction ID', false],
  ['salesTax', 'Sales Tax', false],
] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number][0];
export type DateOrderChoice = 'auto' | 'dmy' | 'mdy';
export type AmountSign = 'expense-negative' | 'expense-positive';
export type Mapping = Partial<Record<MappingField, number>> & { dateOrder: DateOrderChoice; amountSign: AmountSign };

/** The server's suggestion as a starting mapping: its column guesses and conventions. */
export function mappingFromSuggestion(suggested: Record<string, number | string>): Mapping {
  const m: Mapping = {
    dateOrder: suggested.dateOrder === 'dmy' || suggested.dateOrder === 'mdy' ? suggested.dateOrder : 'auto',
    amountSign: suggested.amountSign === 'expense-positive' ? 'expense-positive' : 'expense-negative',
  };
  for (const [field] of MAPPING_FIELDS) {
    const v = suggested[field];
    if (typeof v === 'number') m[field] = v;
  }
  return m;
}

/** A mapping is usable with a date, a description and either an amount or debit/credit. */
export function mappingProblem(m: Mapping): string | null {
  if (m.date === undefined) return 'Choose the column that holds the transaction date.';
  if (m.description === undefined) return 'Choose the column that holds the description.';
  if (m.amount === undefined && m.debit === undefined && m.credit === undefined) return 'Choose an amount column, or the debit and credit columns.';
  return null;
}

export type UploadOutcome = { kind: 'done'; result: ImportResult } | { kind: 'mapping'; needs: NeedsMapping };

export const importApi = {
  async upload(file: File, onProgress: (fraction: number) => void, mapping?: Mapping): Promise<UploadOutcome> {
    const form = new FormData();
    form.append('csvFile', file);
    if (mapping) form.append('mapping', JSON.stringify(mapping));
    try {
      const res = await api.post('/transactions/import', form, {
        onUploadProgress: (e) => onProgress(e.total ? Math.min(1, e.loaded / e.total) : 0),
        timeout: 120_000,
      });
      return { kind: 'done', result: ImportResultSchema.parse(res.data) };
    } catch (e) {
      if (axios.isAxiosError(e) && e.response?.status === 422) {
        const body = e.response.data as { code?: string; details?: unknown };
        if (body.code === 'mapping_required') return { kind: 'mapping', needs: NeedsMappingSchema.parse(body.details) };
      }
      throw e;
    }
  },
};
