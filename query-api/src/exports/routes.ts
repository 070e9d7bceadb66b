/**
 * Exports (spec sections 2, 3, 7 and 8): the report types a member may choose, a preview (how
 * many records, the period, a size estimate and the first records), and the PDF and Excel files.
 * The files are rendered in the worker pool (`render`, infra/src/reports/run.ts) and streamed to
 * the response as they are produced; this router only checks, scopes and reads rows.
 */
import { Router } from 'express';
import type { Request, Response } from 'express';
import type { Writable } from 'node:stream';
import {
  estimateReportBytes, ForbiddenError, formatBytes, reportFileName, reportPeriod, type BlobStore, type ReadStore, type ReportFormat, type ReportMeta,
  type ReportRow, type ReportSettings, type ReportSource, type ReportType, type RequestContext,
} from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { getCompanies, getUser, RECEIPTS, TRANSACTIONS, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';
import { checkSettings, ExportPreviewBody, ExportSettingsBody, reportTypesFor, ReportTypeParams } from './options';
import { ExportReader, type ExportScope, type ReportRowsSpec } from './rows';

export interface ExportDeps {
  store: ReadStore;
  blobs: BlobStore;
  /**
   * Renders a report off the request thread, writing its bytes to `out` as they come. The rows
   * come from `source`, or, where the renderer can read the read store itself (SQLite), from
   * `job.rows`: then `source` only keeps the print copies the renderer made.
   */
  render(job: { meta: ReportMeta; admin: boolean; rows: ReportRowsSpec }, source: ReportSource, out: Writable): Promise<void>;
}

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;
/** The spec's message for a member who may not export a report (section 8). */
export const EXPORT_FORBIDDEN = 'You do not have permission to export reports.';
const CONTENT_TYPE: Record<ReportFormat, string> = { pdf: 'application/pdf', excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
const TITLES: Record<ReportType, string> = { transactions: 'Transactions report', receipts: 'Receipts report', matches: 'Matches report', analytics: 'Analytics report' };

/** Record without its files: what a preview shows. */
function previewRecord(row: ReportRow): Record<string, unknown> {
  const { type: _type, ...rest } = row;
  if ('attachments' in rest) {
    const { attachments: _a, ...plain } = rest;
    return plain;
  }
  return rest;
}

export function exportRouter(deps: ExportDeps): Router {
  const router = Router();
  const { store } = deps;

  const scopeOf = (ctx: RequestContext, type: ReportType): ExportScope => {
    if (type === 'analytics' && ctx.role !== 'admin') throw new ForbiddenError(EXPORT_FORBIDDEN, 'export_forbidden');
    return { companyId: ctx.companyId!, ...(ctx.role === 'admin' ? {} : { userId: ctx.userId! }) };
  };

  router.get('/exports/options', requireCompany(), (_req, res) => {
    res.json({ reportTypes: reportTypesFor(ctxOf(res).role!) });
  });

  router.post('/exports/preview/:reportType', requireCompany(), async (req, res) => {
    const ctx = ctxOf(res);
    const { reportType: type } = ReportTypeParams.parse(req.params);
    const body = ExportPreviewBody.parse(req.body ?? {});
    const { limit, format, preview: _p, ...settings } = body;
    checkSettings(type, settings);
    const reader = new ExportReader(store, null, type, scopeOf(ctx, type), settings);
    const counts = { transactions: 0, receipts: 0, matches: 0 };
    const files = { count: 0, bytes: 0 };
    for (const part of reader.parts()) {
      if (part === 'transactions') {
        const coll = store.collection<TransactionDoc>(TRANSACTIONS);
        const filter = reader.transactionFilter();
        if (ctx.role !== 'admin' && reader.statusFilter) {
          // A member's matched or unmatched means their own receipts: counted row by row (their own rows only).
          const source = reader.source({ attachments: false, linkBase: '', noWalk: true });
          for (let page = await source.next('summary'); ; page = await source.next('summary')) {
            for (const r of page.rows) if (r.type === 'transaction') {
              counts.transactions++;
              if (r.receipts.length > 0) files.count++;
            }
            if (page.done) break;
          }
        } else {
          counts.transactions = await coll.count(filter);
          files.count += await coll.count({ ...filter, receipt_count: { $gt: 0 } });
        }
        files.bytes += files.count * 120_000;
      } else if (part === 'receipts') {
        const filter = reader.receiptFilter();
        const docs = await store.collection<ReceiptDoc>(RECEIPTS).count(filter);
        counts.receipts = docs;
        if (type === 'receipts') {
          files.count += docs;
          files.bytes += docs * 120_000;
        }
      } else {
        counts.matches = (await reader.matches()).length;
      }
    }
    const totalRecords = counts.transactions + counts.receipts + counts.matches;
    const rows = (await reader.source({ attachments: false, linkBase: '', pageSize: limit, noWalk: true }).next('detail')).rows.slice(0, limit);
    const bytes = estimateReportBytes(format, totalRecords, settings.includeDetails ? files : { count: 0, bytes: 0 });
    res.json({
      reportType: type,
      totalRecords,
      counts,
      dateRange: { startDate: settings.startDate ?? null, endDate: settings.endDate ?? null, label: reportPeriod(settings.startDate, settings.endDate) },
      estimatedSize: formatBytes(bytes),
      estimatedBytes: bytes,
      records: rows.map(previewRecord),
    });
  });

  const produce = (format: ReportFormat) => async (req: Request, res: Response) => {
    const ctx = ctxOf(res);
    const { reportType: type } = ReportTypeParams.parse(req.params);
    const settings: ReportSettings = ExportSettingsBody.parse(req.body ?? {});
    checkSettings(type, settings);
    const scope = scopeOf(ctx, type);
    const [companies, user] = await Promise.all([getCompanies(store, [ctx.companyId!]), getUser(store, ctx.userId!)]);
    const company = companies.get(ctx.companyId!)?.name ?? 'Company';
    const meta: ReportMeta = {
      type,
      format,
      title: settings.title ?? TITLES[type],
      company,
      generatedBy: user ? `${user.firstName} ${user.lastName}`.trim() : (ctx.email ?? 'unknown'),
      generatedAt: ctx.now.toISOString(),
      period: reportPeriod(settings.startDate, settings.endDate),
      settings,
      receiptLinkBase: `${req.protocol}://${req.get('host') ?? 'localhost'}`,
    };
    const reader = new ExportReader(store, deps.blobs, type, scope, settings);
    const rows: ReportRowsSpec = { type, scope, settings, attachments: format === 'pdf' && settings.includeDetails, linkBase: meta.receiptLinkBase };
    const source = reader.source({ attachments: rows.attachments, linkBase: rows.linkBase });
    const name = reportFileName(company, type, format, settings.startDate, settings.endDate);
    res.status(200);
    res.setHeader('Content-Type', CONTENT_TYPE[format]);
    res.setHeader('Content-Disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Disposition');
    try {
      await deps.render({ meta, admin: ctx.role === 'admin', rows }, source, res);
    } catch (error) {
      // Before the first byte the error handler answers; after it, the download is cut short.
      if (!res.headersSent) {
        res.removeHeader('Content-Disposition');
        throw error;
      }
      console.error('report failed while streaming:', error);
      res.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    res.end();
  };

  router.post('/exports/pdf/:reportType', requireCompany(), produce('pdf'));
  router.post('/exports/excel/:reportType', requireCompany(), produce('excel'));
  return router;
}
