import type { MasterImportResult, MasterKind } from '../../lib/masterdata-api';

/** Master data CSV max (spec section 9). */
export const MASTER_CSV_MAX_BYTES = 5 * 1024 * 1024;

export const LIST_LABEL: Record<MasterKind, { plural: string; singular: string }> = {
  categories: { plural: 'categories', singular: 'category' },
  job_numbers: { plural: 'job numbers', singular: 'job number' },
  cost_codes: { plural: 'cost codes', singular: 'cost code' },
};

/** Spec section 5, master data: name not empty. */
export function nameProblem(name: string): string | null {
  return name.trim() ? null : 'Name cannot be empty.';
}

/** Spec section 5, master data CSV import: a file, a .csv name, under 5 MB. */
export function importFileProblem(file: { name: string; size: number } | null | undefined): string | null {
  if (!file) return 'Please select a CSV file to import.';
  if (!/\.csv$/i.test(file.name)) return 'Please upload a CSV file.';
  if (file.size >= MASTER_CSV_MAX_BYTES) return 'File size must be less than 5MB.';
  return null;
}

/** Spec section 8, master import outcomes: which toast, with which text. */
export function importOutcome(r: MasterImportResult, kind: MasterKind): { level: 'success' | 'warning' | 'info'; text: string } {
  if (r.summary.errors > 0) return { level: 'warning', text: `Import completed with ${r.summary.errors} errors. Check the details below.` };
  if (r.summary.imported === 0) return { level: 'info', text: 'No new items were imported. All items may already exist.' };
  return { level: 'success', text: `Successfully imported ${r.summary.imported} ${r.summary.imported === 1 ? LIST_LABEL[kind].singular : LIST_LABEL[kind].plural}.` };
}

export const deletePrompt = (name: string) => `Delete "${name}"? This cannot be undone. Items used in any transactions cannot be deleted.`;
