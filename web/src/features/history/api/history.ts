import { z } from 'zod';
import { api } from '../../../lib/api-client';

export type HistoryKind = 'transaction' | 'receipt' | 'match' | 'company' | 'member';

const EntrySchema = z.object({
  position: z.number(),
  eventId: z.string(),
  type: z.string(),
  at: z.string(),
  who: z.object({ userId: z.string(), name: z.string().nullable(), role: z.string().nullable() }).nullable(),
  system: z.string().nullable(),
  summary: z.string(),
  changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
  source: z.record(z.string(), z.unknown()).nullable(),
  requestId: z.string().nullable(),
});
export type HistoryEntry = z.infer<typeof EntrySchema>;

const HistorySchema = z.object({ kind: z.string(), id: z.string(), entries: z.array(EntrySchema), current: z.record(z.string(), z.unknown()).nullable() });

export const historyApi = {
  async get(kind: HistoryKind, id: string) {
    const res = await api.get(`/history/${kind}/${encodeURIComponent(id)}`);
    return HistorySchema.parse(res.data);
  },
};

/** A field's value as people read it. */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Where a change came from, in one line. */
export function sourceLine(source: Record<string, unknown> | null): string | null {
  if (!source) return null;
  switch (source.kind) {
    case 'statement':
      return `Statement ${shown(source.fileName)}, row ${shown(source.row)}`;
    case 'upload':
      return `Upload of ${shown(source.fileName)} (${shown(source.contentType)}, ${shown(source.size)} bytes)`;
    case 'match-run': {
      const evidence = source.evidence as { reasons?: string[] } | null;
      return `Match run (${shown(source.origin)}, threshold ${shown(source.threshold)}): confidence ${shown(source.confidence)}${evidence?.reasons?.length ? `; ${evidence.reasons.join('; ')}` : ''}`;
    }
    case 'manual-match':
      return `Matched by hand: confidence ${shown(source.confidence)}`;
    case 'ocr':
      return `Reading run ${shown(source.run)}${source.reader ? ` (${shown(source.reader)})` : ''}`;
    case 'split':
      return `Split (${shown(source.mode)})`;
    default:
      return null;
  }
}
