import { reportQueries, type ExportDeps } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';
import { renderReport } from './run';

/**
 * Reports rendered in the worker pool. With the SQLite read store (ADR 0018) the worker reads its
 * rows on a connection of its own, once what this connection's group holds is committed; the
 * in-memory store's rows come from here.
 */
function render(k: Kernel): ExportDeps['render'] {
  const file = k.adapters.readStore.kind === 'sqlite' ? (k.adapters.readStore as { file?: string }).file : undefined;
  return async ({ meta, admin, rows }, source, out) => {
    if (!file || file === ':memory:') return renderReport(k.workerPool, { meta, admin }, source, out);
    if (!k.projector && k.writesReadModels) await k.adapters.readStore.flush();
    return renderReport(k.workerPool, { meta, admin, ownRows: { file, ...rows } }, source, out, k.adapters.blobs);
  };
}

/** PDF and Excel reports, streamed. */
export const reports: Feature = {
  feature: 'reports',
  queries: reportQueries,
  wire: (k) => ({ routes: reportQueries.routers!({ store: k.readStore, blobs: k.adapters.blobs, render: render(k) }) }),
};
