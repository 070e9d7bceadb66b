import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from '@paperlink/domain';

/** One suite every read store adapter must pass. */
export function readStoreContract(name: string, create: () => Promise<ReadStore>): void {
  describe(`read store contract: ${name}`, () => {
    let store: ReadStore;
    const coll = `contract_${Math.random().toString(36).slice(2, 8)}`;
    const docs: Doc[] = [
      { _id: 't1', companyId: 'c1', userId: 'u1', date: '2024-01-03', amount: -1250, category: 'Meals', tags: ['a'] },
      { _id: 't2', companyId: 'c1', userId: 'u2', date: '2024-01-01', amount: -300, category: 'Fuel', tags: [] },
      { _id: 't3', companyId: 'c1', userId: 'u1', date: '2024-01-02', amount: 5000, category: null, tags: ['b'] },
      { _id: 't4', companyId: 'c2', userId: 'u3', date: '2024-01-05', amount: -999, category: 'Meals', tags: [] },
      { _id: 't5', companyId: 'c1', userId: 'u2', date: '2024-01-04', amount: -700, category: 'Meals', nested: { x: 2 } },
    ];

    beforeAll(async () => {
      store = await create();
      await store.ensureIndexes(coll, [['companyId'], ['companyId', 'userId']]);
      await store.commit(new Map([[coll, new Map(docs.map((d) => [d._id, d]))]]), [{ name: `${coll}_p`, version: 1, position: 7 }]);
    });
    afterAll(async () => {
      await store.drop([coll], [`${coll}_p`, `${coll}_q`]);
      await store.close();
    });

    it('finds with equality, ranges, $in, $or, $regex, null and dotted paths', async () => {
      const c = store.collection(coll);
      const ids = async (f: Record<string, unknown>) => (await c.find(f, { sort: { _id: 1 } })).map((d) => d._id);
      expect(await ids({ companyId: 'c1' })).toEqual(['t1', 't2', 't3', 't5']);
      expect(await ids({ companyId: 'c1', userId: 'u1' })).toEqual(['t1', 't3']);
      expect(await ids({ companyId: 'c1', amount: { $lt: 0, $gte: -1000 } })).toEqual(['t2', 't5']);
      expect(await ids({ category: { $in: ['Fuel', null] } })).toEqual(['t2', 't3']);
      expect(await ids({ $or: [{ userId: 'u3' }, { amount: { $gt: 0 } }] })).toEqual(['t3', 't4']);
      expect(await ids({ category: { $regex: '^me', $options: 'i' } })).toEqual(['t1', 't4', 't5']);
      expect(await ids({ 'nested.x': 2 })).toEqual(['t5']);
      expect(await ids({ date: { $gte: '2024-01-02', $lte: '2024-01-04' }, companyId: 'c1' })).toEqual(['t1', 't3', 't5']);
    });

    it('sorts on several keys, skips and limits, and counts', async () => {
      const c = store.collection(coll);
      const page = await c.find({ companyId: 'c1' }, { sort: { date: -1 }, skip: 1, limit: 2 });
      expect(page.map((d) => d._id)).toEqual(['t1', 't3']);
      const byCat = await c.find({}, { sort: { category: 1, amount: -1 } });
      expect(byCat.map((d) => d._id)).toEqual(['t3', 't2', 't5', 't4', 't1']);
      expect(await c.count({ companyId: 'c1' })).toBe(4);
      expect(await c.count({})).toBe(5);
      expect(await c.findOne({ _id: 't4' })).toMatchObject({ companyId: 'c2' });
      expect(await c.findOne({ _id: 'nope' })).toBeNull();
    });

    it('finds a page and the total number of matches together', async () => {
      const c = store.collection(coll);
      const { docs, total } = await c.findPage({ companyId: 'c1', amount: { $lt: 0 } }, { sort: { amount: 1 }, skip: 1, limit: 1 });
      expect(total).toBe(3);
      expect(docs.map((d) => d._id)).toEqual(['t5']);
      const none = await c.findPage({ companyId: 'nobody' }, { limit: 10 });
      expect(none).toEqual({ docs: [], total: 0 });
    });

    it('treats missing fields, nulls, arrays and mixed types as MongoDB does', async () => {
      const c = store.collection(coll);
      const ids = async (f: Record<string, unknown>) => (await c.find(f, { sort: { _id: 1 } })).map((d) => d._id);
      expect(await ids({ category: null })).toEqual(['t3']);
      expect(await ids({ nested: { $exists: true } })).toEqual(['t5']);
      expect(await ids({ category: { $ne: 'Meals' } })).toEqual(['t2', 't3']);
      expect(await ids({ tags: 'a' })).toEqual(['t1']);
      expect(await ids({ tags: { $in: ['b', 'zzz'] } })).toEqual(['t3']);
      expect(await ids({ date: { $gt: 5 } })).toEqual([]);
      expect(await ids({ amount: { $nin: [-1250, 5000] }, companyId: 'c1' })).toEqual(['t2', 't5']);
      expect(await ids({ $and: [{ companyId: 'c1' }, { $or: [{ category: 'Fuel' }, { amount: { $gte: 0 } }] }] })).toEqual(['t2', 't3']);
    });

    it('runs the aggregation stages dashboards need', async () => {
      const c = store.collection(coll);
      const rows = await c.aggregate<{ _id: string; total: number; n: number }>([
        { $match: { companyId: 'c1', amount: { $lt: 0 } } },
        { $group: { _id: '$category', total: { $sum: '$amount' }, n: { $sum: 1 } } },
        { $sort: { total: 1 } },
        { $limit: 5 },
      ]);
      expect(rows).toEqual([
        { _id: 'Meals', total: -1950, n: 2 },
        { _id: 'Fuel', total: -300, n: 1 },
      ]);
      const counted = await c.aggregate<{ n: number }>([{ $match: { companyId: 'c1' } }, { $count: 'n' }]);
      expect(counted).toEqual([{ n: 4 }]);
      const projected = await c.aggregate<{ _id: string; neg: boolean }>([
        { $match: { _id: 't3' } },
        { $project: { neg: { $lt: ['$amount', 0] } } },
      ]);
      expect(projected).toEqual([{ _id: 't3', neg: false }]);
    });

    it('returns copies: changing a result does not change the store', async () => {
      const c = store.collection(coll);
      const [d] = await c.find({ _id: 't1' });
      (d as Record<string, unknown>).amount = 1;
      expect((await c.findOne({ _id: 't1' }))!.amount).toBe(-1250);
    });

    it('commits writes and deletes with checkpoints, and reads documents by id', async () => {
      await store.commit(
        new Map([[coll, new Map<string, Doc | null>([['t2', null], ['t6', { _id: 't6', companyId: 'c1', userId: 'u1', amount: -1 }]])]]),
        [{ name: `${coll}_q`, version: 2, position: 9 }],
      );
      const c = store.collection(coll);
      expect(await c.findOne({ _id: 't2' })).toBeNull();
      expect((await c.find({ companyId: 'c1', userId: 'u1' })).map((d) => d._id).sort()).toEqual(['t1', 't3', 't6']);
      const got = await store.getMany(coll, ['t1', 't2', 't6']);
      expect([...got.keys()].sort()).toEqual(['t1', 't6']);
      const cps = await store.getCheckpoints();
      expect(cps).toEqual(expect.arrayContaining([{ name: `${coll}_p`, version: 1, position: 7 }, { name: `${coll}_q`, version: 2, position: 9 }]));
    });

    it('drops collections and checkpoints', async () => {
      const other = `${coll}_drop`;
      await store.commit(new Map([[other, new Map([['x', { _id: 'x' }]])]]), [{ name: `${other}_cp`, version: 1, position: 1 }]);
      await store.drop([other], [`${other}_cp`]);
      expect(await store.collection(other).count({})).toBe(0);
      expect((await store.getCheckpoints()).find((c) => c.name === `${other}_cp`)).toBeUndefined();
    });
  });
}
