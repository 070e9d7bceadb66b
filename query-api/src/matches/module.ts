import { ok, type QueryModule } from '../core/module';
import type { ReadStore } from '@paperlink/domain';
import { AsOfQuery } from '../history/routes';
import { matchQueryRouter, MatchListQuery } from './routes';

/** Matches, pending first, and their counts. */
export const matchQueries: QueryModule<{ store: ReadStore }> = {
  feature: 'matches',
  operations: [
    { method: 'get', path: '/matches', summary: 'Pending and confirmed matches, best first (a non-admin: of their own records); status for one of them, transactionId for those of one card line, q to search both sides (merchant, description, file name, amount), limit and offset for a slice', tags: ['matches'], auth: 'company', query: MatchListQuery.extend(AsOfQuery.shape), success: ok('Matches') },
    { method: 'get', path: '/matches/pending', summary: 'Pending matches, best first; limit and offset for a slice', tags: ['matches'], auth: 'company', query: MatchListQuery.extend(AsOfQuery.shape), success: ok('Matches') },
    { method: 'get', path: '/matches/stats', summary: 'Match counts', tags: ['matches'], auth: 'company', success: ok('Counts') },
  ],
  routers: (deps) => [matchQueryRouter(deps.store)],
};
