export { parseBankStatement } from './statement';
export { CsvFileError } from './errors';
export type { CsvFileErrorCode } from './errors';
export { transactionDedupKey, skipHeldDuplicates, normalizeDescription } from './dedupe';
export { assignRowsToMembers, importAssignees } from './members';
export type { AssignmentDetail, AssignmentResult, AssignmentStatus, Member, NamedRow } from './members';
export { parseMasterDataCsv, masterDataKey, MASTER_CSV_MAX_BYTES } from './master-data';
export type { MasterDataKind, MasterDataParseResult, MasterDataRow } from './master-data';
export type {
  AmountSign, ColumnMapping, CsvDelimiter, CsvEncoding, DateOrder, IgnoredRow, NeedsMapping, ParsedRow,
  RowError, StatementParseOptions, StatementParseResult,
} from './types';
