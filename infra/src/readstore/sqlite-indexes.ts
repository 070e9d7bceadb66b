import { allProjections, type Projection } from '@paperlink/projections';

/**
 * The list orders the projections declare (Projection.listIndexes), by collection: the SQLite
 * read store builds them besides the indexes of `collections` (its extraIndexes), so a page of
 * a big list is read from an index in order instead of sorting every match.
 */
export function listIndexes(projections: readonly Projection[] = allProjections()): Record<string, string[][]> {
  const out: Record<string, string[][]> = {};
  for (const p of projections) for (const [collection, indexes] of Object.entries(p.listIndexes ?? {})) (out[collection] ??= []).push(...indexes);
  return out;
}
