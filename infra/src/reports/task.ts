/**
 * The render task a pool worker runs for a report: folds the summary from a first pass over the
 * rows (when the report shows one), then writes the PDF or the workbook from a second pass, the
 * bytes going back over the report's port as they are produced.
 */
import type { MessagePort } from 'node:worker_threads';
import { SummaryFold, type ReportMeta, type ReportSummary } from '@paperlink/domain';
import { RendererChannel } from './channel';
import { writeExcel } from './excel';
import { writePdf } from './pdf';

export interface RenderInput {
  port: MessagePort;
  meta: ReportMeta;
  admin: boolean;
}

/** Whether a report needs the summary pass. */
export function needsSummary(meta: ReportMeta): boolean {
  const s = meta.settings;
  return meta.type === 'analytics' || s.includeSummary || (meta.format === 'pdf' && s.includeCharts) || (meta.format === 'excel' && !s.includeDetails);
}

export async function renderReportTask({ port, meta, admin }: RenderInput): Promise<null> {
  const channel = new RendererChannel(port);
  try {
    let summary: ReportSummary | null = null;
    if (needsSummary(meta)) {
      const fold = new SummaryFold(meta.generatedAt.slice(0, 10));
      for await (const page of channel.rows('summary')) for (const row of page) fold.add(row);
      summary = fold.result();
    }
    const out = channel.sink();
    const rows = meta.settings.includeDetails ? channel.rows('detail') : (async function* () {})();
    const input = { meta, summary, rows, out, drained: () => channel.drained() };
    if (meta.format === 'pdf') await writePdf({ ...input, admin });
    else await writeExcel({ ...input, admin });
    channel.end();
    return null;
  } catch (error) {
    channel.close();
    throw error;
  }
}
