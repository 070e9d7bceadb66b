import { IdParams, MasterKindParams } from '@paperlink/domain/http/params';
import type { Operation } from '@paperlink/domain/http/operation';
import { AnalyticsExportQuery } from './analytics/routes';
import { ExportPreviewBody, ExportSettingsBody, ReportTypeParams } from './exports/options';
import { ReceiptListQuery } from './receipts/routes';
import { AdvancedMatchBody } from './ai/analyses';
import { TransactionListQuery } from './transactions/routes';
import { AuditExportQuery } from './audit/query';
import { AsOfQuery, HistoryParams } from './history/routes';
import { MatchListQuery } from './matches/routes';

const ok = (description: string, content?: Operation['success']['content']) => ({ status: 200 as const, description, ...(content ? { content } : {}) });

const companyReads = (prefix: '/companies/current' | '/companies/:id'): Operation[] => {
  const auth = prefix === '/companies/current' ? ('company' as const) : ('company-path' as const);
  const where = prefix === '/companies/current' ? {} : { params: IdParams };
  return [
    { method: 'get', path: prefix, summary: 'A company the caller belongs to', tags: ['companies'], auth, ...where, concurrency: 'etag', success: ok('The company') },
    { method: 'get', path: `${prefix}/users`, summary: "The company's members", tags: ['companies'], auth, roles: ['admin', 'manager'], ...where, success: ok('Members') },
    { method: 'get', path: `${prefix}/users/filter`, summary: "The company's members, for filters", tags: ['companies'], auth, roles: ['admin', 'manager'], ...where, success: ok('Members (id, name, role)') },
  ];
};

/** Every route of the query side (reads), with the schemas its handler parses with. */
export const queryOperations: Operation[] = [
  { method: 'get', path: '/auth/profile', summary: 'The signed-in user', tags: ['auth'], auth: 'user', success: ok('The user') },
  { method: 'get', path: '/companies', summary: "The caller's companies", tags: ['companies'], auth: 'user', success: ok('Companies') },
  ...companyReads('/companies/current'),
  ...companyReads('/companies/:id'),
  { method: 'get', path: '/masterdata/:kind', summary: 'A master data list', tags: ['masterdata'], auth: 'company', params: MasterKindParams, success: ok('Items') },
  { method: 'get', path: '/transactions', summary: "Transactions, filtered and paged (a non-admin: their own)", tags: ['transactions'], auth: 'company', query: TransactionListQuery.extend(AsOfQuery.shape), success: ok('A page of transactions') },
  { method: 'get', path: '/transactions/:id', summary: 'One transaction', tags: ['transactions'], auth: 'company', params: IdParams, query: AsOfQuery, concurrency: 'etag', success: ok('The transaction') },
  { method: 'get', path: '/receipts', summary: 'Receipts, filtered and paged (a non-admin: their own)', tags: ['receipts'], auth: 'company', query: ReceiptListQuery.extend(AsOfQuery.shape), success: ok('A page of receipts') },
  { method: 'get', path: '/receipts/:id', summary: 'One receipt', tags: ['receipts'], auth: 'company', params: IdParams, query: AsOfQuery, concurrency: 'etag', success: ok('The receipt') },
  { method: 'get', path: '/receipts/:id/view', summary: "A receipt's file, to show (sandboxed)", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('The file', 'file') },
  { method: 'get', path: '/receipts/:id/download', summary: "A receipt's file, to save", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('The file', 'file') },
  { method: 'get', path: '/receipts/:id/thumbnail', summary: "A small JPEG of a receipt's first page", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('A JPEG', 'image/jpeg') },
  { method: 'get', path: '/receipts/:id/duplicates', summary: 'Receipts the caller may see that look like the same purchase', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Duplicates') },
  { method: 'post', path: '/receipts/:id/duplicate-check', summary: 'Same as GET duplicates', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Duplicates') },
  { method: 'get', path: '/matches', summary: 'Pending and confirmed matches, best first (a non-admin: of their own records); status for one of them, limit and offset for a slice', tags: ['matches'], auth: 'company', query: MatchListQuery.extend(AsOfQuery.shape), success: ok('Matches') },
  { method: 'get', path: '/matches/pending', summary: 'Pending matches, best first; limit and offset for a slice', tags: ['matches'], auth: 'company', query: MatchListQuery.extend(AsOfQuery.shape), success: ok('Matches') },
  { method: 'get', path: '/matches/stats', summary: 'Match counts', tags: ['matches'], auth: 'company', success: ok('Counts') },
  { method: 'get', path: '/analytics/dashboard', summary: 'Dashboard figures, activity and categories (an admin: the company; others: their own data)', tags: ['analytics'], auth: 'company', success: ok('Figures') },
  { method: 'get', path: '/analytics/export', summary: "The dashboard's figures for a date range, as CSV or XLSX (same scoping)", tags: ['analytics'], auth: 'company', query: AnalyticsExportQuery, success: ok('The figures', 'file') },
  { method: 'get', path: '/exports/options', summary: 'Report types the caller may export (analytics: admins)', tags: ['exports'], auth: 'company', success: ok('reportTypes') },
  { method: 'post', path: '/exports/preview/:reportType', summary: 'How many records a report holds, its period, a size estimate and the first records', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportPreviewBody }, success: ok('The preview'), errors: { 403: 'The analytics report is for admins' } },
  { method: 'post', path: '/exports/pdf/:reportType', summary: 'A report as PDF, streamed (a non-admin: their own records)', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportSettingsBody }, success: ok('The PDF', 'file'), errors: { 403: 'The analytics report is for admins' } },
  { method: 'post', path: '/exports/excel/:reportType', summary: 'A report as an Excel workbook, streamed (a non-admin: their own records)', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportSettingsBody }, success: ok('The workbook', 'file'), errors: { 403: 'The analytics report is for admins' } },
  // splitting, calendar, advanced matching, comprehensive analysis
  { method: 'get', path: '/ai/splitting/:id', summary: "A transaction's current split", tags: ['ai'], auth: 'company', params: IdParams, success: ok('transaction_id, amount, is_split, mode, source, stale, parts [{amount, percentage, category_name, job_number_name, cost_code_name, note}]') },
  { method: 'post', path: '/ai/calendar/correlation/:id', summary: "A transaction against its owner's calendar events by date (the event's days ± 1) and place (the descriptor's city in the event's location or title)", tags: ['ai'], auth: 'company', params: IdParams, success: ok('hasCorrelation, correlationDescription, events'), errors: { 404: 'No such transaction of the caller', 409: 'AI switched off' } },
  { method: 'get', path: '/ai/calendar/insights', summary: 'Trips from the calendars in scope with the spending during each', tags: ['ai'], auth: 'company', success: ok('calendars, trips [{summary, location, startDate, endDate, transactionCount, totalSpent, byCategory, transactions}], totals'), errors: { 409: 'AI switched off' } },
  { method: 'post', path: '/ai/matching/advanced/:id', summary: 'Scored candidates for a receipt (transactions) or a transaction (receipts) with the matching engine\'s evidence', tags: ['ai'], auth: 'company', params: IdParams, body: { json: AdvancedMatchBody }, success: ok('kind, id, considered, candidates [{id, confidence, evidence, status}]'), errors: { 404: 'No such record of the caller', 409: 'AI switched off' } },
  { method: 'get', path: '/ai/matching/stats', summary: 'Match figures in scope: by status and origin, acceptance rate, average confidence, confidence bands', tags: ['ai'], auth: 'company', success: ok('Figures') },
  { method: 'post', path: '/ai/analyze/comprehensive/:id', summary: 'The four analyses of a transaction at once (categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis), each with its own error', tags: ['ai'], auth: 'company', params: IdParams, success: ok('analysis {categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis}'), errors: { 404: 'No such transaction of the caller', 409: 'AI switched off' } },
  // history (ADR 0017): a record's timeline, with the scope of the record's own read
  { method: 'get', path: '/history/:kind/:id', summary: "A record's events, oldest first: when, who (name and role then), what changed (before/after per field), from where (statement row, upload, match run and evidence, request id)", tags: ['history'], auth: 'company', params: HistoryParams, success: ok('kind, id, entries [{position, eventId, type, at, who {userId, name, role}, summary, changes [{field, before, after}], source, requestId, correlationId}], current'), errors: { 404: 'No such record the caller may see' } },
  // audit (ADR 0010): admins and auditors
  { method: 'get', path: '/audit/verify', summary: "Walks the event log's hash chain and reports the first broken link (position, event id, expected and found hash)", tags: ['audit'], auth: 'company', roles: ['admin', 'auditor'], success: ok('ok, checked, head {position, hash}, broken? {position, eventId, reason, expected, found}, ms, publicKey'), errors: { 409: 'The event store keeps no chain (EventStoreDB)' } },
  { method: 'get', path: '/audit/export', summary: "The company's events for a period as a signed bundle (JSON lines: a manifest, then one event per line with its hash and the previous one)", tags: ['audit'], auth: 'company', roles: ['admin', 'auditor'], query: AuditExportQuery, success: ok('The bundle', 'file'), errors: { 409: 'The event store keeps no chain (EventStoreDB)' } },
  // system (ADR 0015): projections and blue-green rebuilds, admins
  { method: 'get', path: '/system/rebuilds', summary: 'Projections (version, live generation, position) and the blue-green rebuilds under way or done since start: events read, events per second, seconds left', tags: ['system'], auth: 'company', roles: ['admin'], success: ok('head, position, projections [{name, version, generation, position}], rebuilds [{projection, version, generation, state, processed, position, head, eventsPerSecond, secondsLeft, startedAt, finishedAt, error?}]') },
  { method: 'get', path: '/system/job-failures', summary: "The company's jobs whose last attempt failed (OCR, auto-match), newest first, from the Kafka queue's dead letters", tags: ['system'], auth: 'company', roles: ['admin'], success: ok('queue (kafka or in-process), failures [{id, type, attempts, error, failedAt, causationId}]') },
];
