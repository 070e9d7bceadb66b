/** Text shaping shared by the PDF and Excel writers. */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { ReportMeta, ReportRow, ReportSummary } from '@paperlink/domain';
import { dirname, join } from 'node:path';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
export const money = (cents: number | null): string => (cents === null ? '' : usd.format(cents / 100));
export const dollars = (cents: number): number => Math.round(cents) / 100;

/** Cuts text to about `chars` characters, with an ellipsis. */
export function fit(text: string, chars: number): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  return flat.length <= chars ? flat : `${flat.slice(0, Math.max(1, chars - 1))}…`;
}

const FONT_DIR = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const FONT_REGULAR = join(FONT_DIR, 'DejaVuSans.ttf');
export const FONT_BOLD = join(FONT_DIR, 'DejaVuSans-Bold.ttf');

/** What a report writer (PDF or Excel) is given: the report, its rows page by page, and where to write. */
export interface RenderInput {
  meta: ReportMeta;
  /** Whether the viewer is an admin (a Created by column; an admin may add the dashboard figures). */
  admin: boolean;
  summary: ReportSummary | null;
  rows: AsyncIterable<ReportRow[]>;
  out: Writable;
  /** Resolves when the output has caught up (flow control). */
  drained(): Promise<void>;
  /** Hands a print copy the renderer made back to be kept beside the receipt's file (PDF). */
  keepPrintCopy?(sha256: string, copy: Uint8Array): void;
}
