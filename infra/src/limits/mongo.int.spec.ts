import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { counterStoreContract } from './contract';
import { MongoCounterStore } from './mongo';
import { openCounterStore } from './index';
import { dataDir } from '../data-dir';

const NAME = 'MongoDB (one document per key; FerretDB too)';
const url = process.env.MONGO_URL;

if (!url) {
  // Set MONGO_URL (e.g. mongodb://127.0.0.1:27018/ for FerretDB) to run it; a set URL that does not answer fails.
  const why = 'MONGO_URL is not set';
  console.warn(`SKIPPED limit store contract: ${NAME}: ${why}`);
  describe.skip(`limit store contract: ${NAME} (skipped: ${why})`, () => {
    it('runs the limit store contract against a real MongoDB server', () => {});
  });
} else {
  const db = `paperlink_limits_${Date.now()}_${process.pid}`;
  afterAll(async () => {
    const client = await new MongoClient(url).connect();
    await client.db(db).dropDatabase();
    await client.close();
  });
  counterStoreContract(NAME, () => MongoCounterStore.connect(url, db));
  describe('MongoDB limit store: tickets', () => {
    it('a hit whose ticket is written more than two minutes after it began gives it back and is refused', async () => {
      const t0 = Date.now();
      const late = [t0, t0 + 180_000];
      const stalled = await MongoCounterStore.connect(url, db, { clock: () => late.shift() ?? t0 + 180_000 });
      const store = await MongoCounterStore.connect(url, db);
      try {
        const k = `stale:${randomUUID()}`;
        expect(await stalled.hit(k, { limit: 1, windowMs: 60_000 }, { now: t0 })).toEqual({ allowed: false, retryAfterSeconds: 1, earlier: [] });
        expect(await store.hit(k, { limit: 1, windowMs: 60_000 }, { now: t0 + 1 })).toMatchObject({ allowed: true, earlier: [] });
      } finally {
        await stalled.close();
        await store.close();
      }
    });

    it('tickets ten minutes past their window are deleted by the key’s next allowed hit; given back ones are kept until then', async () => {
      const store = await MongoCounterStore.connect(url, db);
      const client = await new MongoClient(url).connect();
      try {
        const k = `forget:${randomUUID()}`;
        const t0 = Date.now();
        const rule = { limit: 5, windowMs: 1000 };
        for (let i = 0; i < 3; i++) await store.hit(k, rule, { now: t0 + i });
        const given = await store.hit(k, rule, { now: t0 + 3 });
        if (given.allowed) await given.release();
        expect(await client.db(db).collection('_limits').countDocuments({ k })).toBe(4);
        expect(await store.hit(k, rule, { now: t0 + 5000 })).toMatchObject({ allowed: true, earlier: [] });
        expect(await client.db(db).collection('_limits').countDocuments({ k })).toBe(5);
        expect(await store.hit(k, rule, { now: t0 + 1000 + 600_000 + 10 })).toMatchObject({ allowed: true, earlier: [] });
        expect(await client.db(db).collection('_limits').countDocuments({ k })).toBe(2);
      } finally {
        await client.close();
        await store.close();
      }
    });
  });

  describe('openCounterStore with MONGO_URL', () => {
    it('keeps the limits beside the read models, whatever the role', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'paperlink-limits-'));
      const store = await openCounterStore({ MONGO_URL: url, MONGO_DB: db, PAPERLINK_ROLE: 'all' }, dataDir(folder));
      try {
        expect(store.kind).toBe('mongodb');
      } finally {
        await store.close();
        rmSync(folder, { recursive: true, force: true });
      }
    });
  });
}
