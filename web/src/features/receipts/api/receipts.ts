import axios from 'axios';
import { z } from 'zod';
import { API_BASE, api } from '../../../lib/api-client';
import { ifMatch } from '../../../lib/stale';

export const ReceiptSchema = z.object({
  id: z.string(),
  original_filename: z.string(),
  upload_date: z.string(),
  extracted_date: z.string().nullable(),
  extracted_amount: z.number().nullable(),
  extracted_merchant: z.string().nullable(),
  extracted_description: z.string().nullable(),
  extracted_tax: z.number().nullable().optional(),
  file_size: z.number(),
  content_type: z.string().optional(),
  processing_status: z.string(),
  failure_reason: z.string().nullable().optional(),
  match_count: z.number(),
  duplicate_of: z.string().nullable().optional(),
  field_confidence: z.record(z.string(), z.number()).optional(),
  /** Where date, total and merchant were read on the page: fractions [x0, y0, x1, y1]. */
  field_boxes: z.record(z.string(), z.tuple([z.number(), z.number(), z.number(), z.number()])).optional(),
  corrected_fields: z.array(z.string()).optional(),
  user_id: z.string().optional(),
  created_by_first_name: z.string().nullable(),
  created_by_last_name: z.string().nullable(),
  /** The revision this copy shows: sent back in If-Match when saving corrections. */
  revision: z.number().optional(),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

export interface ReceiptFilters {
  userId: string;
  startDate: string;
  endDate: string;
  processingStatus: string;
  minAmount: string;
  maxAmount: string;
  status: string;
  /** The search box (merchant, description, amount, file name), searched by the server. */
  q?: string;
  sortBy: string;
  sortOrder: 'asc' | 'desc';
}
export const DEFAULT_RECEIPT_FILTERS: ReceiptFilters = { userId: '', startDate: '', endDate: '', processingStatus: '', minAmount: '', maxAmount: '', status: '', sortBy: 'upload_date', sortOrder: 'desc' };
export const RECEIPTS_PAGE_SIZE = 20;
/** Receipt upload max (spec section 9). */
export const RECEIPT_MAX_BYTES = 10 * 1024 * 1024;

const ListSchema = z.object({ receipts: z.array(ReceiptSchema), pagination: z.object({ pages: z.number(), total: z.number() }) });
const Candidate = z.object({ transaction_id: z.string(), description: z.string(), transaction_date: z.string(), transaction_amount: z.number(), match_confidence: z.number(), already_matched: z.boolean(), evidence: z.object({ reasons: z.array(z.string()) }).passthrough() });
export type Candidate = z.infer<typeof Candidate>;

/** Where the browser PUTs a presigned upload: relative URLs resolve against the API's origin. */
export function resolveUploadUrl(uploadUrl: string, base = API_BASE, origin = window.location.origin): string {
  if (/^https?:\/\//.test(uploadUrl)) return uploadUrl;
  const apiOrigin = /^https?:\/\//.test(base) ? new URL(base).origin : origin;
  return apiOrigin + uploadUrl;
}

/** Spec section 5: a file without a type is sent as a generic binary type; a missing size as 0. */
export const typeOf = (f: File) => f.type || 'application/octet-stream';

export const receiptsApi = {
  async list(page: number, filters: ReceiptFilters, limit = RECEIPTS_PAGE_SIZE) {
    const params: Record<string, string | number> = { page, limit };
    for (const [k, v] of Object.entries(filters)) if (v !== '' && v !== undefined) params[k] = v;
    return ListSchema.parse((await api.get('/receipts', { params })).data);
  },
  async get(id: string) {
    return ReceiptSchema.parse((await api.get(`/receipts/${encodeURIComponent(id)}`)).data.receipt);
  },
  /**
   * Spec section 4: the presigned direct upload first; on any failure the multipart upload.
   * The direct PUT goes without our API client: the signed URL is its own credential.
   */
  async upload(file: File, onProgress: (fraction: number) => void): Promise<{ duplicate: boolean; via: 'direct' | 'multipart' }> {
    const meta = { originalName: file.name, contentType: typeOf(file), size: file.size || 0 };
    try {
      const pre = (await api.post('/receipts/presign', meta)).data as { uploadUrl: string; key: string };
      const put = await axios.put(resolveUploadUrl(pre.uploadUrl), file, {
        headers: { 'Content-Type': meta.contentType },
        onUploadProgress: (e) => onProgress(e.total ? e.loaded / e.total : 0),
        validateStatus: () => true,
        timeout: 120_000,
      });
      if (put.status < 200 || put.status >= 300) throw new Error(`Upload failed: ${put.status}`);
      const commit = (await api.post('/receipts/commit', { key: pre.key, ...meta })).data as { duplicate?: boolean };
      return { duplicate: !!commit.duplicate, via: 'direct' };
    } catch (direct) {
      // A file the server refused on its bytes is refused the same way by the fallback: say so once.
      if (axios.isAxiosError(direct) && [413, 415].includes(direct.response?.status ?? 0)) throw direct;
      const form = new FormData();
      form.append('receipt', file, file.name);
      const res = await api.post('/receipts/upload', form, { onUploadProgress: (e) => onProgress(e.total ? e.loaded / e.total : 0), timeout: 120_000 });
      return { duplicate: !!(res.data as { duplicate?: boolean }).duplicate, via: 'multipart' };
    }
  },
  /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
  async update(id: string, body: Record<string, string | number | null>, revision?: number) {
    return ReceiptSchema.parse((await api.put(`/receipts/${encodeURIComponent(id)}`, body, ...ifMatch(revision))).data.receipt);
  },
  async remove(id: string) {
    await api.delete(`/receipts/${encodeURIComponent(id)}`);
  },
  async reprocess(id: string) {
    await api.post(`/receipts/${encodeURIComponent(id)}/reprocess`);
  },
  async file(id: string, kind: 'view' | 'download' | 'thumbnail'): Promise<Blob> {
    return (await api.get(`/receipts/${encodeURIComponent(id)}/${kind}`, { responseType: 'blob' })).data as Blob;
  },
  async duplicates(id: string) {
    return z.object({ duplicateAnalysis: z.object({ isDuplicate: z.boolean(), duplicates: z.array(z.object({ id: z.string(), original_filename: z.string(), reason: z.string() }).passthrough()) }) })
      .parse((await api.post(`/receipts/${encodeURIComponent(id)}/duplicate-check`)).data).duplicateAnalysis;
  },
  async findMatches(id: string) {
    return z.object({ candidates: z.array(Candidate), matchId: z.string().nullable() }).parse((await api.post(`/matches/find/${encodeURIComponent(id)}`, {})).data);
  },
  async matchTo(receiptId: string, transactionId: string) {
    await api.post('/matches', { receiptId, transactionId });
  },
};

/** Spec section 9: file sizes in Bytes, KB, MB, GB. */
export function formatFileSize(bytes: number): string {
  if (!bytes) return '0 Bytes';
  const units = ['Bytes', 'KB', 'MB', 'GB'];
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${Number.parseFloat((bytes / 1024 ** i).toFixed(2))} ${units[i]}`;
}
