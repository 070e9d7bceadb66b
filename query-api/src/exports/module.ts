import { ok, type QueryModule } from '../core/module';
import { ExportPreviewBody, ExportSettingsBody, ReportTypeParams } from './options';
import { exportRouter, type ExportDeps } from './routes';

/** PDF and Excel reports: options, previews and the files, streamed. */
export const reportQueries: QueryModule<ExportDeps> = {
  feature: 'reports',
  operations: [
    { method: 'get', path: '/exports/options', summary: 'Report types the caller may export (analytics: admins)', tags: ['exports'], auth: 'company', success: ok('reportTypes') },
    { method: 'post', path: '/exports/preview/:reportType', summary: 'How many records a report holds, its period, a size estimate and the first records', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportPreviewBody }, success: ok('The preview'), errors: { 403: 'The analytics report is for admins' } },
    { method: 'post', path: '/exports/pdf/:reportType', summary: 'A report as PDF, streamed (a non-admin: their own records)', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportSettingsBody }, success: ok('The PDF', 'file'), errors: { 403: 'The analytics report is for admins' } },
    { method: 'post', path: '/exports/excel/:reportType', summary: 'A report as an Excel workbook, streamed (a non-admin: their own records)', tags: ['exports'], auth: 'company', params: ReportTypeParams, body: { json: ExportSettingsBody }, success: ok('The workbook', 'file'), errors: { 403: 'The analytics report is for admins' } },
  ],
  routers: (deps) => [exportRouter(deps)],
};
