import { Router } from 'express';
import { z } from 'zod';
import { ValidationError, type DashboardFigures, type ReadStore, type RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { calendarDate } from '@paperlink/domain/http/schemas';
import { analyticsDashboard, analyticsForRange, type AnalyticsScope } from '@paperlink/projections';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

export const AnalyticsExportQuery = z.object({
  startDate: z.preprocess(blankToUndefined, calendarDate.optional()),
  endDate: z.preprocess(blankToUndefined, calendarDate.optional()),
  format: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : blankToUndefined(v)), z.enum(['csv', 'xlsx'], { error: 'Format is csv or xlsx' }).default('csv')),
});

/** A row of the analytics workbook: section, figure, value. */
export type AnalyticsSheetRow = [string, string, string | number];

export interface AnalyticsDeps {
  /** Builds the XLSX of the rows (header added) in the worker pool: CPU work stays off the request thread. */
  xlsx(rows: AnalyticsSheetRow[]): Promise<Uint8Array>;
}

/** Admins read the company's figures, everyone else their own (spec section 6). */
const scopeOf = (ctx: RequestContext): AnalyticsScope => (ctx.role === 'admin' ? { companyId: ctx.companyId! } : { companyId: ctx.companyId!, userId: ctx.userId! });
const todayUtc = () => new Date().toISOString().slice(0, 10);

/**
 * A CSV cell that a spreadsheet will not run: a value starting with =, +, -, @ (after any
 * spaces), a tab, a carriage return or a line feed gets a leading apostrophe (OWASP CSV
 * injection), then the usual quoting.
 * Numbers are written as numbers (a negative number is data, not a formula).
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = /^[\t\r\n]|^\s*[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n\t]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The figures as rows: section, figure, value (money in dollars, rates in percent). */
export function figureRows(f: DashboardFigures): Array<[string, string, number]> {
  const rows: Array<[string, string, number]> = [];
  for (const [section, values] of [['financial', f.financial], ['processing', f.processing], ['missingFields', f.missingFields]] as const) {
    for (const [name, value] of Object.entries(values)) rows.push([section, name, value as number]);
  }
  for (const c of f.categories) rows.push(['categories', c.category, c.total_amount]);
  return rows;
}

/** GET /analytics/dashboard and /analytics/export: read from the analytics read model only. */
export function analyticsQueryRouter(store: ReadStore, deps: AnalyticsDeps): Router {
  const router = Router();
  const company = requireCompany();

  router.get('/analytics/dashboard', company, async (_req, res) => {
    res.json(await analyticsDashboard(store, scopeOf(ctxOf(res)), todayUtc()));
  });

  router.get('/analytics/export', company, async (req, res) => {
    const q = AnalyticsExportQuery.parse(req.query);
    if (q.startDate && q.endDate && q.startDate > q.endDate) throw new ValidationError('The start date is after the end date', [{ field: 'startDate', message: 'The start date is after the end date' }]);
    const ctx = ctxOf(res);
    const figures = await analyticsForRange(store, scopeOf(ctx), { ...(q.startDate ? { start: q.startDate } : {}), ...(q.endDate ? { end: q.endDate } : {}) });
    const period = `${figures.start ?? 'start'}_to_${figures.end ?? 'end'}`;
    const rows = figureRows(figures);
    const header: [string, string, string] = ['Section', 'Figure', 'Value'];
    const meta: Array<[string, string, string]> = [['period', 'startDate', figures.start ?? ''], ['period', 'endDate', figures.end ?? ''], ['period', 'scope', ctx.role === 'admin' ? 'company' : 'own data']];
    res.setHeader('Cache-Control', 'no-store');
    if (q.format === 'csv') {
      const lines = [header, ...meta, ...rows].map((r) => r.map(csvCell).join(','));
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="analytics_${period}.csv"`);
      res.send(`${lines.join('\r\n')}\r\n`);
      return;
    }
    // The workbook is zipped in a pool worker (infra/src/reports/analytics-xlsx.ts).
    const bytes = await deps.xlsx([...meta, ...rows]);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    res.setHeader('Content-Type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    res.setHeader('Content-Disposition', `attachment; filename="analytics_${period}.xlsx"`);
    res.send(buffer);
  });

  return router;
}
