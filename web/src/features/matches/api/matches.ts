import { z } from 'zod';
import { api } from '../../../lib/api-client';

export const MatchSchema = z.object({
  id: z.string(),
  receipt_id: z.string(),
  transaction_id: z.string(),
  original_filename: z.string().nullable(),
  extracted_merchant: z.string().nullable(),
  extracted_date: z.string().nullable(),
  extracted_amount: z.number().nullable(),
  description: z.string().nullable(),
  transaction_date: z.string().nullable(),
  transaction_amount: z.number().nullable(),
  match_confidence: z.number(),
  user_confirmed: z.boolean(),
  evidence: z.object({
    amountDiffCents: z.number().nullable(),
    amountKind: z.string(),
    daysBetween: z.number().nullable(),
    merchantSimilarity: z.number().nullable(),
    uploaderIsCardHolder: z.boolean().nullable(),
    reasons: z.array(z.string()),
  }).passthrough(),
});
export type Match = z.infer<typeof MatchSchema>;

/** Auto-match threshold of the call layer (spec section 9). */
export const DEFAULT_THRESHOLD = 75;

/** Shared with the dashboard: lib/badges.ts. */
export { confidenceBadge } from '../../../lib/badges';

/** Rows per page of a match list. */
export const MATCH_PAGE = 50;

export const MatchCountsSchema = z.object({ pending_matches: z.number(), confirmed_matches: z.number() }).passthrough();
export type MatchCounts = z.infer<typeof MatchCountsSchema>;

export const matchesApi = {
  /** One page of one list, best first (a company's matches run to tens of thousands). */
  async page(status: 'pending' | 'confirmed', page: number, limit = MATCH_PAGE, q = '') {
    const params = { status, limit, offset: (page - 1) * limit, ...(q.trim() ? { q } : {}) };
    return z.array(MatchSchema).parse((await api.get('/matches', { params })).data);
  },
  /** How many matches each list holds (GET /matches/stats). */
  async counts() {
    return MatchCountsSchema.parse((await api.get('/matches/stats')).data);
  },
  async pending() {
    return z.array(MatchSchema).parse((await api.get('/matches/pending')).data);
  },
  async confirm(id: string) {
    await api.put(`/matches/${encodeURIComponent(id)}/confirm`);
  },
  async reject(id: string) {
    await api.put(`/matches/${encodeURIComponent(id)}/reject`);
  },
  async remove(id: string) {
    await api.delete(`/matches/${encodeURIComponent(id)}`);
  },
  async autoMatch(threshold = DEFAULT_THRESHOLD) {
    return z.object({ matched: z.number() }).passthrough().parse((await api.post('/matches/auto-match', { threshold })).data);
  },
};
