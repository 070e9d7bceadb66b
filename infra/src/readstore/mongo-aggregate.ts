import { Aggregator } from 'mingo';
import type { Collection, Document } from 'mongodb';

/**
 * Stages every server speaking the wire protocol runs as MongoDB does. FerretDB v1 runs
 * `$group` wrongly (only its first `$sum` counts: `{ total: { $sum: '$amount' }, n: { $sum: 1 } }`
 * answers n = 0) and lacks most expression operators (`$lt` in `$project`, `$avg`), so on such a
 * server only a leading run of these stages goes to it and the rest runs here.
 */
const EXACT_EVERYWHERE = new Set(['$match', '$sort', '$skip', '$limit']);

/** What the server computes exactly: everything (MongoDB) or a leading run of plain stages (FerretDB). */
export type AggregationSupport = 'full' | 'plain-stages';

/**
 * Where each stage runs: `server` first, then `client` on what it returned. A `$count` right after
 * the server's run is counted there too (a count over a company's documents is not copied here).
 */
export function splitPipeline(pipeline: Document[], support: AggregationSupport): { server: Document[]; client: Document[] } {
  if (support === 'full') return { server: pipeline, client: [] };
  let at = 0;
  while (at < pipeline.length && EXACT_EVERYWHERE.has(Object.keys(pipeline[at]!)[0]!)) at++;
  if (at < pipeline.length && Object.keys(pipeline[at]!)[0] === '$count') at++;
  return { server: pipeline.slice(0, at), client: pipeline.slice(at) };
}

/** Runs a pipeline, the part the server cannot compute exactly here (mingo, as the embedded stores do). */
export async function aggregate<R>(coll: Collection, pipeline: Document[], support: AggregationSupport): Promise<R[]> {
  const { server, client } = splitPipeline(pipeline, support);
  const input = (await coll.aggregate(server).toArray()) as Document[];
  if (client.length === 0) return input as R[];
  return new Aggregator(client).run(input as Record<string, unknown>[]) as R[];
}
