import { ok, type QueryModule } from '../core/module';


/** Projections, rebuilds and failed jobs for admins (ADR 0015); served by infra (infra/src/system), which knows the runner and the job queue. */
export const systemQueries: QueryModule<never> = {
  feature: 'system',
  operations: [
    { method: 'get', path: '/system/rebuilds', summary: 'Projections (version, live generation, position) and the blue-green rebuilds under way or done since start: events read, events per second, seconds left', tags: ['system'], auth: 'company', roles: ['admin'], success: ok('head, position, projections [{name, version, generation, position}], rebuilds [{projection, version, generation, state, processed, position, head, eventsPerSecond, secondsLeft, startedAt, finishedAt, error?}]') },
    { method: 'get', path: '/system/job-failures', summary: "The company's jobs whose last attempt failed (OCR, auto-match), newest first, from the Kafka queue's dead letters", tags: ['system'], auth: 'company', roles: ['admin'], success: ok('queue (kafka or in-process), failures [{id, type, attempts, error, failedAt, causationId}]') },
  ],
};
