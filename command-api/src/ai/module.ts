import { created, ok, type CommandModule } from '../core/module';
import { AI_LEARNING_EVENT_TYPES, CALENDAR_EVENT_TYPES, SPLIT_EVENT_TYPES } from '@paperlink/domain';
import { IdParams } from '../http/params';
import { aiLearningRouter, BatchBody, FeedbackBody, GroupListQuery, GroupStatusBody, type AiLearningDeps } from './learning';
import { llmTestRouter, TestCategorizationBody, type LlmTestDeps } from './llm-test';
import { SplitBody, splitCalendarRouter, type SplitCalendarDeps } from './split-calendar-routes';

/** What the AI routers are wired with: the learning ports, the language-model tests, splitting and calendars. */
export interface AiCommandDeps {
  learning: AiLearningDeps;
  llmTest: LlmTestDeps;
  tools: SplitCalendarDeps;
}

/** The AI helpers: categorisation, duplicates, recurring series, splitting, calendars, and the language-model tests. */
export const aiCommands: CommandModule<AiCommandDeps> = {
  feature: 'ai',
  events: [...AI_LEARNING_EVENT_TYPES, ...SPLIT_EVENT_TYPES, ...CALENDAR_EVENT_TYPES],
  operations: [
    // learning AI: categorisation, duplicates, recurring charges (a non-admin: their own records)
    { method: 'post', path: '/ai/categorize/transaction/:id', summary: "Predict a transaction's category (payee memory with feedback, the company's linear model, then the language model)", tags: ['ai'], auth: 'company', params: IdParams, success: ok('predictedCategory, predictedCategoryId, confidence (0-1, calibrated), details'), errors: { 404: 'No such transaction of the caller', 409: 'AI or categorisation switched off' } },
    { method: 'post', path: '/ai/categorize/feedback', summary: "'Was this correct': the right category for a prediction (changes the next prediction)", tags: ['ai'], auth: 'company', body: { json: FeedbackBody }, success: ok('Recorded'), errors: { 400: 'Unknown category', 404: 'No such transaction of the caller' } },
    { method: 'get', path: '/ai/categorize/stats', summary: 'Predictions made and accuracy from feedback', tags: ['ai'], auth: 'company', success: ok('total_predictions, accuracy, feedback_count') },
    { method: 'get', path: '/ai/dashboard/stats', summary: 'AI dashboard figures: categorisation and duplicate groups', tags: ['ai'], auth: 'company', success: ok('categorization {total_predictions, accuracy}, duplicates {total_groups, prevented_duplicates}') },
    { method: 'post', path: '/ai/duplicates/check/:id', summary: 'Duplicates of one transaction or receipt (the same charge posted twice, the same receipt twice); records a group', tags: ['ai'], auth: 'company', params: IdParams, success: ok('duplicateAnalysis {isDuplicate, duplicates, confidence, groupId}'), errors: { 404: 'No such record of the caller', 409: 'Duplicate detection switched off' } },
    { method: 'get', path: '/ai/duplicates/groups', summary: 'Duplicate groups (a non-admin: groups of their own records)', tags: ['ai'], auth: 'company', query: GroupListQuery, success: ok('groups [{id, confidence_score, duplicate_count, status}]') },
    { method: 'put', path: '/ai/duplicates/groups/:id', summary: 'Confirm or dismiss a pending duplicate group (a dismissed pair is never raised again)', tags: ['ai'], auth: 'company', params: IdParams, body: { json: GroupStatusBody }, success: ok('The group'), errors: { 404: 'No such group of the caller', 409: 'Already resolved the other way' } },
    { method: 'post', path: '/ai/duplicates/batch', summary: 'Batch duplicate processing: the newest (at most 100) records in scope, each checked against all', tags: ['ai'], auth: 'company', body: { json: BatchBody }, success: ok('results {processed, duplicatesFound, newGroups, groups}') },
    { method: 'post', path: '/ai/recurring/detect/:id', computesOnly: true, summary: 'The recurring series a transaction belongs to', tags: ['ai'], auth: 'company', params: IdParams, success: ok('hasPattern, patternDescription, frequency, pattern'), errors: { 404: 'No such transaction of the caller' } },
    { method: 'get', path: '/ai/matching/recurring/patterns', summary: 'Recurring series among the transactions in scope (weekly, biweekly, monthly, quarterly, yearly)', tags: ['ai'], auth: 'company', success: ok('patterns [{id, description, category_name, frequency, occurrence_count, last_match, next_expected_date}]') },
    // language model tests (/llm-test)
    { method: 'get', path: '/ai/llm/health', summary: 'Health of the language-model chain (primary, fallback, offline)', tags: ['ai'], auth: 'company', success: ok('status, connected, chain') },
    { method: 'post', path: '/ai/llm/test-categorization', summary: "Categorise a description with the company's categories through the model chain", tags: ['ai'], auth: 'company', body: { json: TestCategorizationBody }, success: ok('predictedCategory, confidence, model, attempts'), errors: { 409: 'AI is switched off for the company' } },
    { method: 'post', path: '/ai/llm/test-ocr', summary: 'Read one file by OCR (as receipts are read), nothing stored', tags: ['ai'], auth: 'company', body: { multipart: { files: ['receipt'] } }, success: ok('ocrText, receiptData {filename, fileSize, fileType}'), errors: { 413: "Larger than the company's limit" } },
    // splitting and calendar (their reads are in query-api)
    { method: 'post', path: '/ai/splitting/:id', summary: 'Propose a split of a transaction across categories, job numbers and cost codes (from its matched receipt\'s item lines, else even), and/or save one (amounts to the cent or percentages to 100 %, master data names, at least 2 parts)', tags: ['ai'], auth: 'company', params: IdParams, body: { json: SplitBody }, success: ok('proposal? {source, details, parts, items}, saved, changed, split {parts}'), errors: { 400: 'The parts do not add up, name unknown master data, or are fewer than 2', 404: 'No such transaction of the caller', 409: 'AI switched off (proposals only)' } },
    { method: 'delete', path: '/ai/splitting/:id', summary: "Remove a transaction's split", tags: ['ai'], auth: 'company', params: IdParams, success: ok('removed'), errors: { 404: 'No such transaction of the caller' } },
    { method: 'post', path: '/ai/calendar/upload', summary: "Upload an iCalendar (.ics) file of the caller's events (recurring events expanded; the same file name again replaces it)", tags: ['ai'], auth: 'company', body: { multipart: { files: ['calendar'] } }, success: created('calendar {id, fileName, events, skipped, truncated, replaced}'), errors: { 400: 'Not an iCalendar file, no events, or larger than 5MB' } },
    { method: 'delete', path: '/ai/calendar/calendars/:id', summary: "Remove one of the caller's calendars and its events", tags: ['ai'], auth: 'company', params: IdParams, success: ok('Removed'), errors: { 404: 'No such calendar of the caller' } },
  ],
  routers: (deps) => [llmTestRouter(deps.llmTest), aiLearningRouter(deps.learning), splitCalendarRouter(deps.tools)],
};
