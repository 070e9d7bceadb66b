import { ok, type QueryModule } from '../core/module';
import { AuditExportQuery } from './query';

/** The event log's hash chain checked, and a company's events exported as a signed bundle (ADR 0010); served by infra (infra/src/audit), which reads the log's file. */
export const auditQueries: QueryModule<never> = {
  feature: 'audit',
  operations: [
    { method: 'get', path: '/audit/verify', summary: "Walks the event log's hash chain and reports the first broken link (position, event id, expected and found hash)", tags: ['audit'], auth: 'company', roles: ['admin', 'auditor'], success: ok('ok, checked, head {position, hash}, broken? {position, eventId, reason, expected, found}, ms, publicKey'), errors: { 409: 'The event store keeps no chain (EventStoreDB)' } },
    { method: 'get', path: '/audit/export', summary: "The company's events for a period as a signed bundle (JSON lines: a manifest, then one event per line with its hash and the previous one)", tags: ['audit'], auth: 'company', roles: ['admin', 'auditor'], query: AuditExportQuery, success: ok('The bundle', 'file'), errors: { 409: 'The event store keeps no chain (EventStoreDB)' } },
  ],
};
