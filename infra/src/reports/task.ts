/**
 * The render task a pool worker runs for a report: a first pass over the rows folds the summary
 * (when the report shows one) and, where the store cannot order rows cheaply on the request
 * thread, notes each row's group order; then the PDF or the workbook is written from the detail
 * rows, the bytes going back over the report's port as they are produced.
 */
import type { MessagePort } from 'node:worker_threads';
import { compareSortKeys, sortKeyOf, SummaryFold, type ReportMeta, type ReportPass, type ReportRow, type ReportSource, type ReportSummary, type SortKey } from '@paperlink/domain';
import { RendererChannel } from './channel';
import type { OwnRows } from './worker-rows';

export interface RenderInput {
  port: MessagePort;
  meta: ReportMeta;
  admin: boolean;
  /** The worker orders transactions and receipts itself and asks for them by id (ReportSource.byIds). */
  ordersRows?: boolean;
  /** The worker reads the rows itself from the SQLite read store (worker-rows.ts); none come over the port. */
  ownRows?: OwnRows;
}

/** Where the renderer's rows come from: over the port, or read here. */
interface RowFeed {
  rows(pass: ReportPass): AsyncGenerator<ReportRow[]>;
  byIds(type: 'transaction' | 'receipt', ids: string[]): Promise<ReportRow[]>;
}

/** Rows read in this worker, a page at a time; a report stopped meanwhile stops reading. */
function localFeed(source: ReportSource, channel: RendererChannel): RowFeed {
  const live = () => {
    if (channel.stopped) throw channel.stopped;
  };
  return {
    async *rows(pass) {
      for (;;) {
        live();
        const page = await source.next(pass);
        if (page.rows.length > 0) yield page.rows;
        if (page.done) return;
      }
    },
    byIds: async (type, ids) => {
      live();
      return source.byIds!(type, ids);
    },
  };
}

/** Whether a report needs the summary figures. */
export function needsSummary(meta: ReportMeta): boolean {
  const s = meta.settings;
  return meta.type === 'analytics' || s.includeSummary || (meta.format === 'pdf' && s.includeCharts) || (meta.format === 'excel' && !s.includeDetails);
}

/** Detail rows asked for by id at a time (fewer when receipt files travel with them). */
const ID_PAGE = { pdf: 200, excel: 2000 } as const;

export async function renderReportTask({ port, meta, admin, ordersRows = false, ownRows }: RenderInput): Promise<null> {
  const channel = new RendererChannel(port);
  const own = ownRows ? await (await import('./worker-rows')).openOwnRows(ownRows, channel).catch((error: unknown) => {
    channel.close();
    throw error;
  }) : null;
  const feed: RowFeed = own ? localFeed(own.source, channel) : channel;
  try {
    const details = meta.settings.includeDetails;
    const ordering = (own ? !!own.source.byIds : ordersRows) && details;
    const by = meta.type === 'analytics' ? 'date' : meta.settings.groupBy;
    // 100,000 rows keep about 10 MB of keys here; the rows themselves are not kept.
    const keys: Record<'transaction' | 'receipt', SortKey[]> = { transaction: [], receipt: [] };
    let summary: ReportSummary | null = null;
    if (needsSummary(meta) || ordering) {
      const fold = needsSummary(meta) ? new SummaryFold(meta.generatedAt.slice(0, 10)) : null;
      for await (const page of feed.rows('summary')) {
        for (const row of page) {
          fold?.add(row);
          if (ordering && row.type !== 'match') keys[row.type].push(sortKeyOf(row, by));
        }
      }
      summary = fold?.result() ?? null;
    }
    const out = channel.sink();
    const rows = !details ? (async function* () {})() : ordering ? ordered(feed, keys, ID_PAGE[meta.format]) : feed.rows('detail');
    const input = { meta, admin, summary, rows, out, drained: () => channel.drained(), keepPrintCopy: (sha256: string, copy: Uint8Array) => channel.printCopy(sha256, copy) };
    // Each format loads its own library (a workbook never loads pdfkit, fontkit and sharp's callers; a PDF never exceljs).
    if (meta.format === 'pdf') await (await import('./pdf')).writePdf(input);
    else await (await import('./excel')).writeExcel(input);
    channel.end();
    return null;
  } catch (error) {
    channel.close();
    throw error;
  } finally {
    await own?.close();
  }
}

/** Transactions, then receipts, in group order by id, then the matches (already ordered by the source). */
async function* ordered(channel: RowFeed, keys: Record<'transaction' | 'receipt', SortKey[]>, size: number): AsyncGenerator<ReportRow[]> {
  for (const type of ['transaction', 'receipt'] as const) {
    const ids = keys[type].sort(compareSortKeys).map((k) => k[2]);
    keys[type] = [];
    for (let i = 0; i < ids.length; i += size) {
      const rows = await channel.byIds(type, ids.slice(i, i + size));
      if (rows.length > 0) yield rows;
    }
  }
  yield* channel.rows('detail');
}
