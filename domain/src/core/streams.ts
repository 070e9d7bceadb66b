import { createHash } from 'node:crypto';

/**
 * Every stream name, in one place. A stream holds what one decision needs to read: keep each
 * one sized to its decisions (a stream that grows with a company's history and is read whole on
 * a hot path is a defect, see issue 13). Events are projected from the global log by type, so a
 * name chosen here affects only the write side.
 */
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);

// Accounts and companies.
/** Reserves an e-mail address (one account per address). */
export const emailStream = (email: string) => `email-${digest(email)}`;
export const userStream = (userId: string) => `user-${userId}`;
export const sessionStream = (sessionId: string) => `session-${sessionId}`;
export const companyStream = (companyId: string) => `company-${companyId}`;
export const settingsStream = (companyId: string) => `settings-${companyId}`;
export const masterStream = (companyId: string) => `masterdata-${companyId}`;

// Transactions and imports.
export const transactionStream = (id: string) => `transaction-${id}`;
export const importStream = (importId: string) => `import-${importId}`;
/** Every statement imported into a company (statement de-duplication). */
export const ledgerStream = (companyId: string) => `imports-${companyId}`;
export const mappingStream = (companyId: string) => `csvmappings-${companyId}`;
/** Claims one statement file (by its SHA-256) for a company: an import's de-duplication reads one event. */
export const statementFileStream = (companyId: string, fileHash: string) => `statementfile-${digest(`${companyId}|${fileHash}`)}`;
/** Says that every statement of a company's ledger has its file claimed (written once per company). */
export const statementIndexStream = (companyId: string) => `statementindex-${companyId}`;

// Receipts.
export const receiptStream = (id: string) => `receipt-${id}`;
export const uploadStream = (key: string) => `upload-${key}`;

// Matching (legacy: every match of a company in one stream; see issue 13).
export const matchingStream = (companyId: string) => `matching-${companyId}`;

// AI helpers.
export const splitStream = (transactionId: string) => `split-${transactionId}`;
export const categorizationStream = (transactionId: string): string => `aiCategorization-${transactionId}`;
export const duplicateGroupStream = (groupId: string): string => `aiDuplicateGroup-${groupId}`;
export const calendarStream = (companyId: string, userId: string) => `calendar-${companyId}.${userId}`;

// Requests: the record of a request's answer, by its X-Request-Id (retries).
export const requestStream = (requestId: string) => `request-${digest(requestId)}`;
