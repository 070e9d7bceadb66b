import { ok, type CommandModule } from '../core/module';
import { eventTypes, STATEMENT_CLAIM_EVENT_TYPES, type ColumnMappingEvent, type ImportEvent } from '@paperlink/domain';
import { importRouter, ImportFields } from './import';
import type { ImportDeps } from './import-deps';

/** Bank and card statements imported from CSV: rows decided, de-duplicated and assigned. */
export const importCommands: CommandModule<ImportDeps> = {
  feature: 'imports',
  events: [...eventTypes<ImportEvent>({ StatementImported: true, TransactionsImported: true }), ...STATEMENT_CLAIM_EVENT_TYPES, ...eventTypes<ColumnMappingEvent>({ ColumnMappingSaved: true })],
  operations: [
    // transactions
    {
      method: 'post', path: '/transactions/import', summary: 'Import a bank statement (CSV)', tags: ['transactions'], auth: 'company',
      description: "A non-admin's rows are always their own. Rows the company already holds are skipped (as many times as it holds them).",
      body: { multipart: { files: ['csvFile'], fields: ImportFields } }, success: ok('What was imported, skipped and refused, row by row'),
      errors: { 422: 'The columns were not recognised: send a mapping', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' },
    },
  ],
  routers: (deps) => [importRouter(deps)],
};
