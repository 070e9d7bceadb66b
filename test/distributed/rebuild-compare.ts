/**
 * The read models the projectors left on the server against a rebuild of the same log. The
 * rebuild goes into the in-memory store (the read-store contract suites hold it to the same
 * answers as MongoDB's): rebuilding into FerretDB itself takes longer than the fault test has.
 */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { allProjections, GenerationalReadStore, rebuildInBulk } from '@paperlink/projections';
import type { Doc } from '@paperlink/domain';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { MongoReadStore } from '../../infra/src/readstore/mongo';

export interface Comparison {
  /** Every read model's name with how many documents the rebuild holds. */
  sizes: Map<string, number>;
  /** Read models whose documents differ, each with its first differing document. */
  differences(): Promise<string[]>;
  /** Changes one field of one live document behind the projectors' back (to show a difference is seen). */
  tamper(name: string): Promise<string>;
  close(): Promise<void>;
}

const show = (d: Doc) => JSON.stringify(d).slice(0, 300);
/** As the API would send it (fields left undefined are absent), in any key order. */
const same = (a: Doc, b: Doc | undefined) => isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b ?? null)));

/** Rebuilds every read model from the data folder's log and opens the live ones on `env`'s server. */
export async function compareWithRebuild(env: Record<string, string>): Promise<Comparison> {
  const projections = allProjections();
  const events = new SqliteEventStore(join(env.DATA_DIR!, 'events.sqlite'));
  const rebuilt = await GenerationalReadStore.open(new EmbeddedReadStore(), projections);
  const mongo = await MongoReadStore.connect(env.MONGO_URL!, env.MONGO_DB!);
  const live = await GenerationalReadStore.open(mongo, projections);
  const names = projections.flatMap((p) => Object.keys(p.collections));
  const sizes = new Map<string, number>();
  const read = (store: GenerationalReadStore, name: string) => store.collection(name).find({}, { sort: { _id: 1 } });
  try {
    await rebuildInBulk(events, rebuilt, projections);
    for (const name of names) sizes.set(name, (await read(rebuilt, name)).length);
  } catch (error) {
    await Promise.all([live.close(), rebuilt.close(), events.close()]);
    throw error;
  }
  return {
    sizes,
    async differences() {
      const out: string[] = [];
      for (const name of names) {
        const [a, b] = await Promise.all([read(live, name), read(rebuilt, name)]);
        if (a.length !== b.length) {
          out.push(`${name}: ${a.length} documents live, ${b.length} rebuilt`);
          continue;
        }
        const at = a.findIndex((d, i) => !same(d, b[i]));
        if (at >= 0) out.push(`${name}: live ${show(a[at]!)} / rebuilt ${show(b[at]!)}`);
      }
      return out;
    },
    async tamper(name) {
      const physical = live.physical(name);
      const doc = await mongo.database.collection<{ _id: string }>(physical).findOne({});
      if (!doc) throw new Error(`${name} is empty`);
      await mongo.database.collection<{ _id: string }>(physical).updateOne({ _id: doc._id }, { $set: { tamperedWith: true } });
      return doc._id;
    },
    async close() {
      await live.close();
      await rebuilt.close();
      await events.close();
    },
  };
}
