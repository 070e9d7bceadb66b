/**
 * The report module's own reader, for a worker thread that renders a report and reads its rows
 * itself (infra/src/reports/worker-rows.ts). Light on purpose: it loads no HTTP code.
 */
export { ExportReader, type ExportScope } from './src/exports/rows';
