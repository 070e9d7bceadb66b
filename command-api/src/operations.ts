import type { Operation } from './http/openapi';
import { SplitBody } from './ai/split-calendar-routes';
import { CompanyUserParams, IdParams, UserIdParams } from './http/params';
import { LoginBody, LogoutBody, PasswordBody, ProfileBody, RefreshBody, RegisterBody } from './accounts/routes';
import { CompanyUpdateBody, InviteBody, RoleBody } from './companies/routes';
import { ImportFields } from './imports/import';
import { TransactionUpdateBody } from './transactions/routes';
import { ManualBody, ThresholdBody } from './matches/routes';
import { CommitBody, CorrectionBody, DirectUploadParams, PresignBody } from './receipts/routes';
import { MasterItemBody, MasterItemParams, MasterKindParams } from './masterdata/routes';
import { ModelBody, SettingBody, SettingKeyParams } from './settings/routes';
import { TestCategorizationBody } from './ai/llm-test';
import { BatchBody, FeedbackBody, GroupListQuery, GroupStatusBody } from './ai/learning';

const ok = (description: string) => ({ status: 200 as const, description });
const created = (description: string) => ({ status: 201 as const, description });

const companyOps = (prefix: '/companies/current' | '/companies/:id'): Operation[] => {
  const auth = prefix === '/companies/current' ? ('company' as const) : ('company-path' as const);
  const where = prefix === '/companies/current' ? {} : { params: IdParams };
  const member = prefix === '/companies/current' ? UserIdParams : CompanyUserParams;
  const of = prefix === '/companies/current' ? 'the current company' : 'the company in the path';
  return [
    { method: 'put', path: prefix, summary: `Rename ${of} or set its domain`, tags: ['companies'], auth, roles: ['admin'], ...where, body: { json: CompanyUpdateBody }, concurrency: 'if-match', success: ok('The company after the change') },
    { method: 'post', path: `${prefix}/invite`, summary: `Add a registered user to ${of}`, tags: ['companies'], auth, roles: ['admin'], ...where, body: { json: InviteBody }, success: created('The member added') },
    { method: 'put', path: `${prefix}/users/:userId/role`, summary: `Change a member's role in ${of}`, tags: ['companies'], auth, roles: ['admin'], params: member, body: { json: RoleBody }, success: ok('The member after the change') },
    { method: 'delete', path: `${prefix}/users/:userId`, summary: `Remove a member from ${of} (their access ends at once)`, tags: ['companies'], auth, roles: ['admin'], params: member, success: ok('Removed') },
  ];
};

/** Every route of the command side (writes), with the schemas its handler parses with. */
export const commandOperations: Operation[] = [
  // accounts (public)
  { method: 'post', path: '/auth/register', summary: 'Create an account and its company; signs in', tags: ['auth'], auth: 'none', body: { json: RegisterBody }, success: created('The user, the company and tokens'), errors: { 409: 'The email address is taken' } },
  { method: 'post', path: '/auth/login', summary: 'Sign in', tags: ['auth'], auth: 'none', body: { json: LoginBody }, success: ok('The user and tokens'), errors: { 401: 'Wrong email or password', 429: 'Too many failed attempts' } },
  { method: 'post', path: '/auth/refresh', summary: 'New tokens for a refresh token (rotated; a reused one ends the session)', tags: ['auth'], auth: 'none', body: { json: RefreshBody }, success: ok('New tokens'), errors: { 401: 'The refresh token is not valid, expired or reused' } },
  { method: 'post', path: '/auth/logout', summary: 'Sign out the session of a refresh or access token', tags: ['auth'], auth: 'none', body: { json: LogoutBody }, success: ok('Signed out'), errors: { 401: 'The token is not valid' } },
  // accounts (signed in)
  { method: 'post', path: '/auth/logout-all', summary: 'Sign out every session of the caller', tags: ['auth'], auth: 'user', success: ok('Signed out everywhere') },
  { method: 'put', path: '/auth/profile', summary: "Change the caller's name", tags: ['auth'], auth: 'user', body: { json: ProfileBody }, success: ok('The user after the change') },
  { method: 'put', path: '/auth/password', summary: "Change the caller's password (ends their other sessions)", tags: ['auth'], auth: 'user', body: { json: PasswordBody }, success: ok('Changed'), errors: { 400: 'The current password is wrong (a failed attempt of the account, as a failed sign-in)', 429: 'Too many wrong current passwords (Retry-After)', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  // companies
  ...companyOps('/companies/current'),
  ...companyOps('/companies/:id'),
  // transactions
  {
    method: 'post', path: '/transactions/import', summary: 'Import a bank statement (CSV)', tags: ['transactions'], auth: 'company',
    description: "A non-admin's rows are always their own. Rows the company already holds are skipped (as many times as it holds them).",
    body: { multipart: { files: ['csvFile'], fields: ImportFields } }, success: ok('What was imported, skipped and refused, row by row'),
    errors: { 422: 'The columns were not recognised: send a mapping', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' },
  },
  { method: 'put', path: '/transactions/:id', summary: 'Edit a transaction', tags: ['transactions'], auth: 'company', params: IdParams, body: { json: TransactionUpdateBody }, concurrency: 'if-match', success: ok('The transaction after the change'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'delete', path: '/transactions/:id', summary: 'Delete a transaction (and its matches)', tags: ['transactions'], auth: 'company', params: IdParams, success: ok('Deleted'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  // receipts
  { method: 'put', path: '/receipts/direct/:token', summary: 'The target of a presigned upload URL: the file bytes', tags: ['receipts'], auth: 'upload-link', params: DirectUploadParams, body: { raw: 'application/octet-stream' }, success: ok('The file arrived; commit it next'), errors: { 413: 'The file is larger than 10 MB', 400: 'Not a JPG, PNG or PDF', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'post', path: '/receipts/presign', summary: 'A signed URL to upload one receipt file to', tags: ['receipts'], auth: 'company', body: { json: PresignBody }, success: ok('The upload URL and key'), errors: { 413: 'The file is larger than 10 MB', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'post', path: '/receipts/commit', summary: 'Turn an uploaded file into a receipt', tags: ['receipts'], auth: 'company', body: { json: CommitBody }, success: created('The receipt (read by OCR next)'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'post', path: '/receipts/upload', summary: 'Upload a receipt file (multipart)', tags: ['receipts'], auth: 'company', body: { multipart: { files: ['receipt'] } }, success: created('The receipt (read by OCR next)'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'put', path: '/receipts/:id', summary: "Correct a receipt's date, amounts, merchant or description", tags: ['receipts'], auth: 'company', params: IdParams, body: { json: CorrectionBody }, concurrency: 'if-match', success: ok('The receipt after the change') },
  { method: 'post', path: '/receipts/:id/reprocess', summary: 'Read a receipt again', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Queued') },
  { method: 'delete', path: '/receipts/:id', summary: 'Delete a receipt (and its matches)', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Deleted') },
  // matches
  { method: 'post', path: '/matches/auto-match', summary: "Match the caller's receipts and transactions (admins: the company's)", tags: ['matches'], auth: 'company', body: { json: ThresholdBody }, success: ok('How many were matched and suggested') },
  { method: 'post', path: '/matches/find/:id', summary: 'The best transactions for one receipt; suggests the best free one', tags: ['matches'], auth: 'company', params: IdParams, body: { json: ThresholdBody }, success: ok('Candidates') },
  { method: 'post', path: '/matches', summary: 'Match a receipt and a transaction by hand (a non-admin: both their own)', tags: ['matches'], auth: 'company', body: { json: ManualBody }, success: ok('The match') },
  { method: 'put', path: '/matches/:id/confirm', summary: 'Confirm a suggested match', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Confirmed') },
  { method: 'put', path: '/matches/:id/reject', summary: 'Reject a suggested match (not suggested again)', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Rejected') },
  { method: 'delete', path: '/matches/:id', summary: 'Delete a match', tags: ['matches'], auth: 'company', params: IdParams, success: ok('Deleted') },
  // master data
  { method: 'post', path: '/masterdata/:kind', summary: 'Add an item to a list', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterKindParams, body: { json: MasterItemBody }, success: created('The item') },
  { method: 'put', path: '/masterdata/:kind/:id', summary: 'Rename an item', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterItemParams, body: { json: MasterItemBody }, success: ok('The item') },
  { method: 'delete', path: '/masterdata/:kind/:id', summary: 'Delete an item no transaction uses', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterItemParams, success: ok('Deleted'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  { method: 'post', path: '/masterdata/:kind/import', summary: 'Import items from a CSV file', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterKindParams, body: { multipart: { files: ['csvFile'] } }, success: ok('Added, skipped and refused rows') },
  // settings (reads for every member, writes for admins; no route takes or shows an API key)
  { method: 'get', path: '/settings', summary: "The company's advanced settings, each with value and description", tags: ['settings'], auth: 'company', success: ok('Settings and the chosen language models') },
  { method: 'get', path: '/settings/llm/model', summary: 'The primary language model', tags: ['settings'], auth: 'company', success: ok('The model') },
  { method: 'put', path: '/settings/llm/model', summary: 'Choose the primary language model', tags: ['settings'], auth: 'company', roles: ['admin'], body: { json: ModelBody }, success: ok('The model'), errors: { 400: 'No model, or not one of the available models' } },
  { method: 'get', path: '/settings/llm/fallback-model', summary: 'The fallback language model', tags: ['settings'], auth: 'company', success: ok('The model (null: none)') },
  { method: 'put', path: '/settings/llm/fallback-model', summary: 'Choose the fallback language model (null: none)', tags: ['settings'], auth: 'company', roles: ['admin'], body: { json: ModelBody }, success: ok('The model') },
  { method: 'post', path: '/settings/llm/test', summary: 'Test the connection to the hosted language model', tags: ['settings'], auth: 'company', roles: ['admin'], success: ok('connected, status, the chain of models') },
  { method: 'get', path: '/settings/llm/available-models', summary: 'Models to choose from (the Models API when a key is set)', tags: ['settings'], auth: 'company', roles: ['admin'], success: ok('models [{name}]; 502 when the Models API could not be read') },
  { method: 'get', path: '/settings/:key', summary: 'One setting', tags: ['settings'], auth: 'company', params: SettingKeyParams, success: ok('key, value, description'), errors: { 404: 'No such setting' } },
  { method: 'put', path: '/settings/:key', summary: 'Change one setting (validated: autoMatchThreshold 0-100, maxFileSize up to the server maximum, flags true/false)', tags: ['settings'], auth: 'company', roles: ['admin'], params: SettingKeyParams, body: { json: SettingBody }, success: ok('key, value, description') },
  // learning AI: categorisation, duplicates, recurring charges (a non-admin: their own records)
  { method: 'post', path: '/ai/categorize/transaction/:id', summary: "Predict a transaction's category (payee memory with feedback, the company's linear model, then the language model)", tags: ['ai'], auth: 'company', params: IdParams, success: ok('predictedCategory, predictedCategoryId, confidence (0-1, calibrated), details'), errors: { 404: 'No such transaction of the caller', 409: 'AI or categorisation switched off' } },
  { method: 'post', path: '/ai/categorize/feedback', summary: "'Was this correct': the right category for a prediction (changes the next prediction)", tags: ['ai'], auth: 'company', body: { json: FeedbackBody }, success: ok('Recorded'), errors: { 400: 'Unknown category', 404: 'No such transaction of the caller' } },
  { method: 'get', path: '/ai/categorize/stats', summary: 'Predictions made and accuracy from feedback', tags: ['ai'], auth: 'company', success: ok('total_predictions, accuracy, feedback_count') },
  { method: 'get', path: '/ai/dashboard/stats', summary: 'AI dashboard figures: categorisation and duplicate groups', tags: ['ai'], auth: 'company', success: ok('categorization {total_predictions, accuracy}, duplicates {total_groups, prevented_duplicates}') },
  { method: 'post', path: '/ai/duplicates/check/:id', summary: 'Duplicates of one transaction or receipt (the same charge posted twice, the same receipt twice); records a group', tags: ['ai'], auth: 'company', params: IdParams, success: ok('duplicateAnalysis {isDuplicate, duplicates, confidence, groupId}'), errors: { 404: 'No such record of the caller', 409: 'Duplicate detection switched off' } },
  { method: 'get', path: '/ai/duplicates/groups', summary: 'Duplicate groups (a non-admin: groups of their own records)', tags: ['ai'], auth: 'company', query: GroupListQuery, success: ok('groups [{id, confidence_score, duplicate_count, status}]') },
  { method: 'put', path: '/ai/duplicates/groups/:id', summary: 'Confirm or dismiss a pending duplicate group (a dismissed pair is never raised again)', tags: ['ai'], auth: 'company', params: IdParams, body: { json: GroupStatusBody }, success: ok('The group'), errors: { 404: 'No such group of the caller', 409: 'Already resolved the other way' } },
  { method: 'post', path: '/ai/duplicates/batch', summary: 'Batch duplicate processing: the newest (at most 100) records in scope, each checked against all', tags: ['ai'], auth: 'company', body: { json: BatchBody }, success: ok('results {processed, duplicatesFound, newGroups, groups}') },
  { method: 'post', path: '/ai/recurring/detect/:id', summary: 'The recurring series a transaction belongs to', tags: ['ai'], auth: 'company', params: IdParams, success: ok('hasPattern, patternDescription, frequency, pattern'), errors: { 404: 'No such transaction of the caller' } },
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
];
