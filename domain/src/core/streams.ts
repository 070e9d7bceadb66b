import { createHash } from 'node:crypto';

/**
 * Every stream name, in one place. A stream holds what one decision needs to read: keep each
 * one sized to its decisions (a stream that grows with a company's history and is read whole on
 * a hot path is a defect: ADR 0021, ADR 0022). Events are projected from the global log by type, so a
 * name chosen here affects only the write side.
 */
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);

// Accounts and companies.
/** Reserves an e-mail address (one account per address). */
export const emailStream = (email: string) => `email-${digest(email)}`;
export const userStream = (userId: string) => `user-${userId}`;
export const sessionStream = (sessionId: string) => `session-${sessionId}`;
/** Failed sign-ins and wrong current passwords of a user in one hour (ADR 0022): a throttle decision reads this hour's and the last. */
export const signInAttemptsStream = (userId: string, hour: number) => `signins-${userId}.${hour}`;
/** Marks an address tag the user has signed in from (ADR 0022): one small stream per user and tag. */
export const signInSourceStream = (userId: string, source: string) => `signinsource-${userId}.${source}`;
/** Checkpoints of a user stream (its state at a stored revision), for streams written before ADR 0022. */
export const userSnapshotStream = (userId: string) => `usersnapshot-${userId}`;
export const companyStream = (companyId: string) => `company-${companyId}`;
export const settingsStream = (companyId: string) => `settings-${companyId}`;
export const masterStream = (companyId: string) => `masterdata-${companyId}`;

// Transactions and imports.
export const transactionStream = (id: string) => `transaction-${id}`;
export const importStream = (importId: string) => `import-${importId}`;
/** Every statement imported into a company (statement de-duplication). */
export const ledgerStream = (companyId: string) => `imports-${companyId}`;
/** Column mappings saved before ADR 0023, every header of a company in one stream (read, no longer appended to). */
export const mappingStream = (companyId: string) => `csvmappings-${companyId}`;
/** The column mapping a company saved for one header (the last event is the one in force). */
export const columnMappingStream = (companyId: string, headerKey: string) => `csvmapping-${digest(`${companyId}|${headerKey}`)}`;
/** Claims one statement file (by its SHA-256) for a company: an import's de-duplication reads one event. */
export const statementFileStream = (companyId: string, fileHash: string) => `statementfile-${digest(`${companyId}|${fileHash}`)}`;
/** Says that every statement of a company's ledger has its file claimed (written once per company). */
export const statementIndexStream = (companyId: string) => `statementindex-${companyId}`;

// Receipts.
export const receiptStream = (id: string) => `receipt-${id}`;
export const uploadStream = (key: string) => `upload-${key}`;

// Matching (ADR 0021): a receipt's matches (public events) and a transaction's (its notes).
export const receiptMatchesStream = (receiptId: string) => `receiptMatches-${receiptId}`;
export const transactionMatchesStream = (transactionId: string) => `transactionMatches-${transactionId}`;
/** Legacy, read once by the upgrade: every match of a company in one stream (before ADR 0021). */
export const matchingStream = (companyId: string) => `matching-${companyId}`;
/** The upgrade's mark: the company's legacy matches were carried into their side streams. */
export const matchingCarriedStream = (companyId: string) => `matchingCarried-${companyId}`;

// AI helpers.
export const splitStream = (transactionId: string) => `split-${transactionId}`;
export const categorizationStream = (transactionId: string): string => `aiCategorization-${transactionId}`;
export const duplicateGroupStream = (groupId: string): string => `aiDuplicateGroup-${groupId}`;
export const calendarStream = (companyId: string, userId: string) => `calendar-${companyId}.${userId}`;

// Requests: the record of a request's answer, by its X-Request-Id (retries).
export const requestStream = (requestId: string) => `request-${digest(requestId)}`;
