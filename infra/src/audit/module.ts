import { auditQueries } from '@paperlink/query-api';
import type { Feature } from '../boot/feature';
import { auditRouter } from './routes';

/** The event log's hash chain checked and exported (ADR 0010): read here from the log's file. */
export const audit: Feature = {
  feature: 'audit',
  queries: auditQueries,
  wire: (k) => ({ routes: [auditRouter({ pool: k.workerPool, eventsFile: k.config.EVENTSTORE_URL ? undefined : k.dir.eventsFile, secret: k.secret })] }),
};
