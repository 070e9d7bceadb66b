/**
 * A report's rows read by the pool worker that renders it (ADR 0018, amended): with the SQLite
 * read store the worker opens the file on a read-only connection of its own (a small page cache,
 * no memory map), resolves each projection's live generation as the request thread does
 * (GenerationalReadStore over the `_generations` aliases, read again before every page: a
 * blue-green switch is followed), and builds the rows with the request side's own reader
 * (query-api's ExportReader) under the scope the request side computed. The request thread then
 * only checks the request, starts the job and writes the bytes; receipt files (a PDF's) are still
 * read there from the blob store, asked for over the report's port.
 */
import type { BlobStore, ReportPass, ReportRow, ReportSettings, ReportSource, ReportType } from '@paperlink/domain';
import { allProjections, GenerationalReadStore } from '@paperlink/projections';
import { ExportReader, type ExportScope } from '@paperlink/query-api/reports';
import { SqliteReadStore } from '../readstore/sqlite';

/** What the worker needs to read a report's rows itself. */
export interface OwnRows {
  /** The SQLite read store's file. */
  file: string;
  type: ReportType;
  /** The scope the request side computed (a member: only their rows). */
  scope: ExportScope;
  settings: ReportSettings;
  /** Receipt files travel with the detail rows (PDF). */
  attachments: boolean;
  linkBase: string;
}

/** The worker's page cache for a report's reads, MB (the rows are read once each, in order). */
const CACHE_MB = 2;

/** Blob reads the worker asks the request thread for (see RendererChannel.file). */
export interface FileReader {
  file(sha256: string, derived?: string): Promise<Uint8Array | null>;
}

function blobsOverPort(files: FileReader): BlobStore {
  const asBuffer = (b: Uint8Array | null) => (b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : null);
  const refused = (): never => {
    throw new Error('a report reads receipt files only');
  };
  return {
    get: async (sha256: string) => asBuffer(await files.file(sha256)),
    getDerived: async (sha256: string, name: string) => asBuffer(await files.file(sha256, name)),
    putDerived: async () => refused(),
  } as unknown as BlobStore;
}

/** The rows of a report read here, and a close for the connection. */
export async function openOwnRows(spec: OwnRows, files: FileReader): Promise<{ source: ReportSource; close(): Promise<void> }> {
  const inner = new SqliteReadStore(spec.file, { readOnly: true, cacheMb: CACHE_MB });
  try {
    const store = await GenerationalReadStore.open(inner, allProjections());
    const reader = new ExportReader(store, spec.attachments ? blobsOverPort(files) : null, spec.type, spec.scope, spec.settings);
    const rows = reader.source({ attachments: spec.attachments, linkBase: spec.linkBase });
    // A generation switched since the last page is followed (the aliases are one small table).
    const fresh = async <T>(read: () => Promise<T>): Promise<T> => {
      await store.reloadGenerations();
      return read();
    };
    const source: ReportSource = {
      next: (pass: ReportPass) => fresh(() => rows.next(pass)),
      ...(rows.byIds ? { byIds: (type: 'transaction' | 'receipt', ids: string[]): Promise<ReportRow[]> => fresh(() => rows.byIds!(type, ids)) } : {}),
    };
    return { source, close: () => inner.close() };
  } catch (error) {
    await inner.close();
    throw error;
  }
}
