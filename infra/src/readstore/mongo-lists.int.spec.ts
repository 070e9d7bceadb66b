import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc, SortSpec } from '@paperlink/domain';
import { TRANSACTIONS } from '@paperlink/projections';
import { findInPages } from './paged';
import { mongoListIndexes } from './mongo-indexes';
import { MongoReadStore } from './mongo';
import { compareValues, getPath } from './sort';

const url = process.env.MONGO_URL;
const skip = url ? undefined : 'MONGO_URL is not set (a MongoDB or FerretDB server: make test-distributed starts one)';
if (skip && process.env.CI === 'true') throw new Error(`MongoDB lists suite: ${skip}; under CI=true it must run`);

const N = 700;
/** Documents between keyset anchors here (1,000 in the product: FerretDB sorts every match of each read). */
const EVERY = 100;
const CATEGORIES = ['Fuel', 'Meals', null, 'Travel'];

/** A company's lines: many on each day, some without a category (nulls sort first ascending, last descending). */
function lines(): Doc[] {
  return Array.from({ length: N }, (_, i) => ({
    _id: `t${String(i).padStart(5, '0')}`,
    companyId: i % 13 === 0 ? 'other' : 'c1',
    userId: `u${i % 4}`,
    transaction_date: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 5)).padStart(2, '0')}`,
    description: `MERCHANT ${i % 97}`,
    amountCents: -((i * 7919) % 5000),
    category_name: CATEGORIES[i % 4]!,
    _pos: i + 1,
  }));
}

/** MongoDB's order for a sort with its tie-break, in JavaScript. */
const ordered = (docs: Doc[], sort: SortSpec) => [...docs].sort((a, b) => {
  for (const [path, dir] of Object.entries(sort)) {
    const c = compareValues(path === '_id' ? a._id : getPath(a, path), path === '_id' ? b._id : getPath(b, path));
    if (c !== 0) return c * dir;
  }
  return 0;
});

describe.skipIf(skip !== undefined)(`MongoDB read store: lists at scale${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const db = `paperlink_lists_${Date.now()}`;
  const commands: CommandStartedEvent[] = [];
  let store: MongoReadStore;
  let anchored: MongoReadStore;
  let client: MongoClient;
  const docs = lines();
  const company = docs.filter((d) => d.companyId === 'c1');
  const seen = (name: string, since: number) => commands.slice(since).filter((c) => c.commandName === name);

  beforeAll(async () => {
    client = await MongoClient.connect(url!);
    // An index as an older version of this store made it (no tie-break): replaced.
    await client.db(db).collection(TRANSACTIONS).createIndex({ companyId: 1 });
    await client.db(db).collection(TRANSACTIONS).insertMany(docs as unknown as Document[]);
    // The lists' indexes, also on a server that reads no sort from them (FerretDB leaves them out by default).
    store = await MongoReadStore.connect(url!, db, { extraIndexes: mongoListIndexes(), client: { monitorCommands: true } });
    store.database.client.on('commandStarted', (e) => commands.push(e));
    await store.ensureIndexes(TRANSACTIONS, [['companyId'], ['companyId', 'userId'], ['companyId', 'transaction_date']]);
    anchored = await MongoReadStore.connect(url!, db, { anchorsEverywhere: true, anchorEvery: EVERY });
  });
  afterAll(async () => {
    await store?.close();
    await anchored?.close();
    await client?.db(db).dropDatabase();
    await client?.close();
  });

  it('makes an index for every list order, with the _id tie-break in the sort\'s direction, and drops the old ones', async () => {
    const indexes = await client.db(db).collection(TRANSACTIONS).indexes();
    const keys = indexes.map((i) => JSON.stringify(i.key));
    const carried = { userId: 1, category_name: 1, absCents: 1, receipt_count: 1 };
    expect(keys).toContain(JSON.stringify({ companyId: 1, description: 1, transaction_date: -1, _id: -1, ...carried }));
    expect(keys).toContain(JSON.stringify({ companyId: 1, description: 1, transaction_date: 1, _id: 1, ...carried }));
    expect(keys).toContain(JSON.stringify({ companyId: 1, transaction_date: 1, _id: 1, userId: 1, category_name: 1, absCents: 1, receipt_count: 1 }));
    expect(keys).toContain(JSON.stringify({ companyId: 1, userId: 1, _id: 1 }));
    expect(indexes.map((i) => i.name)).not.toContain('companyId_1');
  });

  it('sorts ties by _id in the sort\'s direction, as one index reads them', async () => {
    for (const sort of [{ transaction_date: -1 }, { transaction_date: 1 }, { category_name: 1, transaction_date: -1 }, { description: -1, transaction_date: -1 }] as SortSpec[]) {
      const page = await store.collection(TRANSACTIONS).find({ companyId: 'c1' }, { sort, skip: 40, limit: 30 });
      const tie = Object.values(sort).at(-1)!;
      expect(page.map((d) => d._id), JSON.stringify(sort)).toEqual(ordered(company, { ...sort, _id: tie }).slice(40, 70).map((d) => d._id));
    }
  });

  it('reads deep pages from keyset anchors with the same answers as skipping, before and after a write', async () => {
    const lists: Array<[Record<string, unknown>, SortSpec]> = [
      [{ companyId: 'c1' }, { transaction_date: -1 }],
      [{ companyId: 'c1' }, { category_name: -1, transaction_date: -1 }],
      [{ companyId: 'c1' }, { description: 1 }],
      [{ companyId: 'c1' }, { category_name: 1, transaction_date: -1 }],
      [{ companyId: 'c1', amountCents: { $lt: -100 } }, { amountCents: 1, transaction_date: -1 }],
    ];
    const check = async () => {
      for (const [filter, sort] of lists) {
        for (const at of [0, 99, 100, 101, 290, 430, 600]) {
          const expected = await store.collection(TRANSACTIONS).find(filter, { sort, skip: at, limit: 25 });
          const got = await anchored.collection(TRANSACTIONS).find(filter, { sort, skip: at, limit: 25 });
          expect(got.map((d) => d._id), `${JSON.stringify(sort)} at ${at}`).toEqual(expected.map((d) => d._id));
        }
      }
    };
    await check();
    // A write moves documents across the anchors: they are laid again.
    const moved = { ...company[5]!, category_name: 'Aaa', transaction_date: '2030-01-01', _pos: N + 10 };
    await store.commit(new Map([[TRANSACTIONS, new Map([[moved._id, moved], [company[9]!._id, null]])]]), []);
    await check();
  }, 120_000);

  it('keeps a list\'s total until the collection is written, instead of counting every page', async () => {
    const c = store.collection(TRANSACTIONS);
    const filter = { companyId: 'c1', userId: 'u1' };
    const first = await c.findPage(filter, { sort: { transaction_date: -1 }, limit: 10 });
    const since = commands.length;
    const again = await c.findPage(filter, { sort: { transaction_date: -1 }, skip: 10, limit: 10 });
    expect(again.total).toBe(first.total);
    expect(seen('aggregate', since).concat(seen('count', since))).toEqual([]);
    // Written behind the store's back (no commit): the kept total does not see it.
    await client.db(db).collection(TRANSACTIONS).insertOne({ _id: 'sneaked', companyId: 'c1', userId: 'u1', transaction_date: '2024-01-01' } as Document);
    expect(await c.count(filter)).toBe(first.total);
    // A commit moves the collection's version: counted again, with both (the last known total while the recount runs).
    await store.commit(new Map([[TRANSACTIONS, new Map([['added', { _id: 'added', companyId: 'c1', userId: 'u1', transaction_date: '2024-01-02', _pos: N + 20 }]])]]), []);
    expect([first.total, first.total + 2]).toContain(await c.count(filter));
    const end = Date.now() + 10_000;
    while ((await c.count(filter)) !== first.total + 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await c.count(filter)).toBe(first.total + 2);
  });

  it('writes a commit as one bulk write per collection and its checkpoints in one statement', async () => {
    const since = commands.length;
    const a = new Map<string, Doc | null>(Array.from({ length: 10 }, (_, i) => [`n${i}`, { _id: `n${i}`, companyId: 'c9', _pos: N + 100 + i }]));
    const b = new Map<string, Doc | null>([['k1', { _id: 'k1', count: 1, _pos: N + 200 }], ['t00002', null]]);
    await store.commit(new Map([[TRANSACTIONS, a], ['transaction_keys', b]]), ['p1', 'p2', 'p3', 'p4'].map((name) => ({ name, version: 1, position: N + 200 })));
    const writes = commands.slice(since).filter((c) => ['insert', 'update', 'delete'].includes(c.commandName));
    const per = (coll: string, name: string) => writes.filter((c) => c.commandName === name && c.command[name] === coll).length;
    expect(per(TRANSACTIONS, 'update')).toBe(1);
    expect(per('transaction_keys', 'update') + per('transaction_keys', 'delete')).toBe(2);
    // The checkpoints: new ones are upserted together (an update that matched none first).
    expect(per('_checkpoints', 'update')).toBeLessThanOrEqual(2);
    const cps = await store.getCheckpoints();
    expect(cps.filter((c) => c.name.startsWith('p')).map((c) => c.position)).toEqual([N + 200, N + 200, N + 200, N + 200]);
    // Once they exist, one statement moves them all.
    const next = commands.length;
    await store.commit(new Map(), ['p1', 'p2', 'p3', 'p4'].map((name) => ({ name, version: 1, position: N + 300 })));
    expect(commands.slice(next).filter((c) => c.command.update === '_checkpoints')).toHaveLength(1);
  });

  it('reads a company\'s documents page after page from where the last page ended', async () => {
    const all = (await client.db(db).collection(TRANSACTIONS).find({ companyId: 'c1' }).sort({ _id: 1 }).toArray()).map((d) => String(d._id));
    expect(await findInPages(store.collection(TRANSACTIONS), { companyId: 'c1' }, (d) => d._id)).toEqual(all);
    // As findInPages goes through a bigger company (2,000 a page): each page after the last id served.
    const pages = store.collection(TRANSACTIONS) as unknown as { mapPage<R>(f: Record<string, unknown>, skip: number, limit: number, map: (d: Doc) => R): Promise<R[]> };
    const since = commands.length;
    const ids: string[] = [];
    for (let skip = 0; ; skip += 250) {
      const page = await pages.mapPage({ companyId: 'c1' }, skip, 250, (d) => d._id);
      ids.push(...page);
      if (page.length < 250) break;
    }
    expect(ids).toEqual(all);
    const finds = seen('find', since).filter((c) => c.command.find === TRANSACTIONS);
    expect(finds.length).toBe(Math.ceil((all.length + 1) / 250));
    for (const f of finds.slice(1)) {
      expect(JSON.stringify(f.command.filter)).toContain('$gt');
      expect(f.command.skip ?? 0).toBe(0);
    }
  });

  it('as the only writer, reads back what it wrote without a round trip and inserts what it knows is absent', async () => {
    const writer = await MongoReadStore.connect(url!, db, { soleWriter: true, client: { monitorCommands: true } });
    const mine: CommandStartedEvent[] = [];
    writer.database.client.on('commandStarted', (e) => mine.push(e));
    try {
      const ids = ['w1', 'w2', 'w3'];
      expect((await writer.getMany('writer_docs', ids)).size).toBe(0); // one read: all absent
      await writer.commit(new Map([['writer_docs', new Map(ids.map((id, i) => [id, { _id: id, n: i, _pos: 1 }]))]]), []);
      const written = mine.filter((c) => c.command.insert === 'writer_docs' || c.command.update === 'writer_docs');
      expect(written.map((c) => c.commandName)).toEqual(['insert']);
      const before = mine.length;
      const got = await writer.getMany('writer_docs', ids);
      expect([...got.values()].map((d) => d.n)).toEqual([0, 1, 2]);
      expect(mine.slice(before).filter((c) => c.commandName === 'find')).toEqual([]);
      // A copy: changing it changes nothing kept.
      got.get('w1')!.n = 99;
      expect((await writer.getMany('writer_docs', ['w1'])).get('w1')!.n).toBe(0);
      // Known present: replaced, guarded by its position.
      await writer.commit(new Map([['writer_docs', new Map([['w1', { _id: 'w1', n: 5, _pos: 2 }]])]]), []);
      expect((await client.db(db).collection('writer_docs').findOne({ _id: 'w1' } as Document))?.n).toBe(5);
    } finally {
      await writer.close();
    }
  });

  it('bulk loads a rebuild\'s flushes: new documents inserted, those of an earlier flush replaced, deleted ones gone', async () => {
    const loader = await MongoReadStore.connect(url!, db, { soleWriter: true });
    try {
      const first = new Map<string, Doc | null>(Array.from({ length: 50 }, (_, i) => [`b${i}`, { _id: `b${i}`, n: i, _pos: 1 }]));
      await loader.bulkLoad(new Map([['bulk_docs', first]]), [{ name: 'bulk', version: 1, position: 1 }]);
      const second = new Map<string, Doc | null>([['b1', { _id: 'b1', n: 100, _pos: 2 }], ['b2', null], ['b60', { _id: 'b60', n: 60, _pos: 2 }]]);
      await loader.bulkLoad(new Map([['bulk_docs', second]]), [{ name: 'bulk', version: 1, position: 2 }]);
      const docs = await client.db(db).collection('bulk_docs').find({}).sort({ _id: 1 }).toArray();
      expect(docs).toHaveLength(50);
      expect(docs.find((d) => d._id === ('b1' as unknown))?.n).toBe(100);
      expect(docs.some((d) => d._id === ('b2' as unknown))).toBe(false);
      expect(docs.find((d) => d._id === ('b60' as unknown))?.n).toBe(60);
      expect((await loader.getCheckpoints()).find((c) => c.name === 'bulk')?.position).toBe(2);
    } finally {
      await loader.close();
    }
  });

  it('knows, as the only writer, that a collection it dropped holds only what it wrote since', async () => {
    const writer = await MongoReadStore.connect(url!, db, { soleWriter: true, client: { monitorCommands: true } });
    const finds: CommandStartedEvent[] = [];
    writer.database.client.on('commandStarted', (e) => e.commandName === 'find' && finds.push(e));
    try {
      await writer.drop(['fresh_docs'], []);
      await writer.commit(new Map([['fresh_docs', new Map([['f1', { _id: 'f1', _pos: 1 }]])]]), []);
      const got = await writer.getMany('fresh_docs', ['f1', 'f2', 'f3']);
      expect([...got.keys()]).toEqual(['f1']);
      expect(finds.filter((c) => c.command.find === 'fresh_docs')).toEqual([]);
    } finally {
      await writer.close();
    }
  });

  it('replaces hundreds of documents in one commit (FerretDB: in update commands of a size it completes)', async () => {
    const many = (n: number, pos: number) => new Map<string, Doc | null>(Array.from({ length: 300 }, (_, i) => [`m${i}`, { _id: `m${i}`, n, _pos: pos }]));
    await store.commit(new Map([['many_docs', many(1, 1)]]), []);
    await store.commit(new Map([['many_docs', many(2, 2)]]), []);
    expect(await client.db(db).collection('many_docs').countDocuments({ n: 2 })).toBe(300);
  });
});