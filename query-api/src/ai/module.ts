import { ok, type QueryModule } from '../core/module';
import { IdParams } from '@paperlink/domain/http/params';
import { AdvancedMatchBody, aiQueryRouter, type AiQueryDeps } from './analyses';

/** The AI reads: splits, calendar correlation and insights, advanced matching, the comprehensive analysis. */
export const aiQueries: QueryModule<AiQueryDeps> = {
  feature: 'ai',
  operations: [
    { method: 'get', path: '/ai/splitting/:id', summary: "A transaction's current split", tags: ['ai'], auth: 'company', params: IdParams, success: ok('transaction_id, amount, is_split, mode, source, stale, parts [{amount, percentage, category_name, job_number_name, cost_code_name, note}]') },
    { method: 'post', path: '/ai/calendar/correlation/:id', summary: "A transaction against its owner's calendar events by date (the event's days ± 1) and place (the descriptor's city in the event's location or title)", tags: ['ai'], auth: 'company', params: IdParams, success: ok('hasCorrelation, correlationDescription, events'), errors: { 404: 'No such transaction of the caller', 409: 'AI switched off' } },
    { method: 'get', path: '/ai/calendar/insights', summary: 'Trips from the calendars in scope with the spending during each', tags: ['ai'], auth: 'company', success: ok('calendars, trips [{summary, location, startDate, endDate, transactionCount, totalSpent, byCategory, transactions}], totals'), errors: { 409: 'AI switched off' } },
    { method: 'post', path: '/ai/matching/advanced/:id', summary: 'Scored candidates for a receipt (transactions) or a transaction (receipts) with the matching engine\'s evidence', tags: ['ai'], auth: 'company', params: IdParams, body: { json: AdvancedMatchBody }, success: ok('kind, id, considered, candidates [{id, confidence, evidence, status}]'), errors: { 404: 'No such record of the caller', 409: 'AI switched off' } },
    { method: 'get', path: '/ai/matching/stats', summary: 'Match figures in scope: by status and origin, acceptance rate, average confidence, confidence bands', tags: ['ai'], auth: 'company', success: ok('Figures') },
    { method: 'post', path: '/ai/analyze/comprehensive/:id', summary: 'The four analyses of a transaction at once (categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis), each with its own error', tags: ['ai'], auth: 'company', params: IdParams, success: ok('analysis {categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis}'), errors: { 404: 'No such transaction of the caller', 409: 'AI switched off' } },
  ],
  routers: (deps) => [aiQueryRouter(deps)],
};
