import { ok, type CommandModule } from '../core/module';
import { MATCH_EVENT_TYPES } from '@paperlink/domain';
import { IdParams } from '../http/params';
import type { MatchDeps } from './auto';
import { ManualBody, matchRouter, ThresholdBody } from './routes';

/** Receipt-to-transaction matches: auto-match, by hand, confirmed, rejected. */
export const matchCommands: CommandModule<MatchDeps> = {
  feature: 'matches',
  events: MATCH_EVENT_TYPES,
  operations: [
    // matches
    { method: 'post', path: '/matches/auto-match', summary: "Match the caller's receipts and transactions (admins: the company's)", tags: ['matches'], auth: 'company', body: { json: ThresholdBody }, success: ok('How many were matched and suggested') },
    { method: 'post', path: '/matches/find/:id', summary: 'The best transactions for one receipt; suggests the best free one', tags: ['matches'], auth: 'company', params: IdParams, body: { json: ThresholdBody }, success: ok('Candidates') },
    { method: 'post', path: '/matches', summary: 'Match a receipt and a transaction by hand (a non-admin: both their own)', tags: ['matches'], auth: 'company', body: { json: ManualBody }, success: ok('The match') },
    { method: 'put', path: '/matches/:id/confirm', summary: 'Confirm a suggested match', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Confirmed') },
    { method: 'put', path: '/matches/:id/reject', summary: 'Reject a suggested match (not suggested again)', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Rejected') },
    { method: 'delete', path: '/matches/:id', summary: 'Delete a match', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Deleted') },
  ],
  routers: (deps) => [matchRouter(deps)],
};
