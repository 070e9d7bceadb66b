import { ok, type QueryModule } from '../core/module';
import type { EventStore, ReadStore } from '@paperlink/domain';
import { AsOfReplayer } from './as-of';
import { asOfReads, historyRouter, HistoryParams } from './routes';

/** What history and as-of reads are wired with: the log, the read models, and an empty store to replay a company into. */
export interface HistoryQueryDeps {
  events: EventStore;
  store: ReadStore;
  newStore(): ReadStore;
}

/** A record's timeline, and the lists as of a moment (ADR 0017): mounted before the lists, whose `asOf` reads it answers. */
export const historyQueries: QueryModule<HistoryQueryDeps> = {
  feature: 'history',
  operations: [
    { method: 'get', path: '/history/:kind/:id', summary: "A record's events, oldest first: when, who (name and role then), what changed (before/after per field), from where (statement row, upload, match run and evidence, request id)", tags: ['history'], auth: 'company', params: HistoryParams, success: ok('kind, id, entries [{position, eventId, type, at, who {userId, name, role}, summary, changes [{field, before, after}], source, requestId, correlationId}], current'), errors: { 404: 'No such record the caller may see' } },
  ],
  routers: (deps) => [asOfReads(new AsOfReplayer(deps.events, { newStore: deps.newStore })), historyRouter(deps)],
};
