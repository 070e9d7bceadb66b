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
