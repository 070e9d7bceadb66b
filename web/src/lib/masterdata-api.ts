import { z } from 'zod';
import { api } from './api-client';

export type MasterKind = 'categories' | 'job_numbers' | 'cost_codes';
export const MasterItemSchema = z.object({ id: z.string(), name: z.string(), category_id: z.string().optional(), category_name: z.string().nullable().optional() });
export type MasterItem = z.infer<typeof MasterItemSchema>;

export const ImportResultSchema = z.object({
  summary: z.object({ imported: z.number(), skipped: z.number(), errors: z.number(), totalRows: z.number() }),
  details: z.object({
    duplicates: z.array(z.object({ row: z.number(), name: z.string(), reason: z.string() })),
    errors: z.array(z.object({ row: z.number(), error: z.string(), name: z.string() })),
  }),
});
export type MasterImportResult = z.infer<typeof ImportResultSchema>;

export const masterApi = {
  async list(kind: MasterKind): Promise<MasterItem[]> {
    return z.array(MasterItemSchema).parse((await api.get(`/masterdata/${kind}`)).data);
  },
  async add(kind: MasterKind, name: string, categoryId?: string): Promise<MasterItem> {
    return MasterItemSchema.parse((await api.post(`/masterdata/${kind}`, { name, ...(categoryId ? { category_id: categoryId } : {}) })).data);
  },
  async update(kind: MasterKind, id: string, name: string, categoryId?: string): Promise<MasterItem> {
    return MasterItemSchema.parse((await api.put(`/masterdata/${kind}/${encodeURIComponent(id)}`, { name, ...(categoryId ? { category_id: categoryId } : {}) })).data);
  },
  async remove(kind: MasterKind, id: string): Promise<void> {
    await api.delete(`/masterdata/${kind}/${encodeURIComponent(id)}`);
  },
  async importCsv(kind: MasterKind, file: File): Promise<MasterImportResult> {
    const form = new FormData();
    form.append('csvFile', file);
    return ImportResultSchema.parse((await api.post(`/masterdata/${kind}/import`, form)).data);
  },
};
