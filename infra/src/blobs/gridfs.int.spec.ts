import { createHash, randomBytes } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalTarget } from '../testing/external';
import { blobStoreContract } from './contract';
import { GridFsBlobStore } from './gridfs';

const NAME = 'MongoDB GridFS (mongodb driver)';
const target = externalTarget('MONGO_URL');

if ('skip' in target) {
  console.warn(`SKIPPED blob store contract: ${NAME}: ${target.skip}`);
  describe.skip(`blob store contract: ${NAME} (skipped: ${target.skip})`, () => {
    it('runs the blob store contract against a real MongoDB', () => {});
  });
} else {
  let stop: (() => Promise<unknown>) | undefined;
  let server: Promise<string> | undefined;
  const databases: string[] = [];
  const serverUrl = () =>
    (server ??= (async () => {
      if ('url' in target) return target.url;
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer('mongo:7')
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .start();
      stop = () => container.stop();
      return `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    })());
  const freshDb = () => {
    const name = `paperlink_blobs_${Date.now()}_${databases.length}`;
    databases.push(name);
    return name;
  };

  // Starting a container (and pulling its image) may take longer than one hook's timeout.
  beforeAll(() => serverUrl().then(() => undefined), 240_000);
  afterAll(async () => {
    if (server) {
      const client = new MongoClient(await serverUrl());
      try {
        for (const db of databases) await client.db(db).dropDatabase();
      } finally {
        await client.close();
      }
    }
    await stop?.();
  });

  blobStoreContract(NAME, async () => GridFsBlobStore.connect(await serverUrl(), freshDb()));

  describe(`GridFS blob store: ${NAME}`, () => {
    let client: MongoClient;
    let dbName: string;
    let store: GridFsBlobStore;
    const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

    beforeAll(async () => {
      const url = await serverUrl();
      dbName = freshDb();
      client = new MongoClient(url);
      await client.connect();
      store = await GridFsBlobStore.connect(url, dbName);
    });
    afterAll(async () => {
      await store?.close();
      await client?.close();
    });

    it('keeps one files document per content (unique index on filename) and no orphan chunks after a race', async () => {
      const db = client.db(dbName);
      const indexes = await db.collection('receipts.files').indexes();
      expect(indexes.some((i) => i.unique === true && JSON.stringify(i.key) === JSON.stringify({ filename: 1 }))).toBe(true);

      const bytes = randomBytes(1024 * 1024); // several 255 KiB chunks
      const key = sha256(bytes);
      // Two stores, as two processes would have, racing on the same bytes.
      const other = await GridFsBlobStore.connect(await serverUrl(), dbName);
      try {
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).put(bytes)));
        expect(results.every((r) => r.sha256 === key && r.size === bytes.byteLength)).toBe(true);
      } finally {
        await other.close();
      }
      const files = await db.collection('receipts.files').find({ filename: key }).toArray();
      expect(files).toHaveLength(1);
      expect(files[0]!.length).toBe(bytes.byteLength);
      const chunks = await db.collection('receipts.chunks').countDocuments({ files_id: files[0]!._id });
      expect(chunks).toBe(Math.ceil(bytes.byteLength / (255 * 1024)));
      // Chunks whose file is not there (no $lookup: FerretDB has none).
      const owners = new Set((await db.collection('receipts.files').find({}, { projection: { _id: 1 } }).toArray()).map((f) => String(f._id)));
      const orphans = (await db.collection('receipts.chunks').distinct('files_id')).filter((id) => !owners.has(String(id)));
      expect(orphans).toEqual([]);
      expect((await store.get(key))!.equals(bytes)).toBe(true);
    });

    it('chunks left by a crashed upload (no files document) are not a blob', async () => {
      const db = client.db(dbName);
      const bytes = randomBytes(300 * 1024);
      const key = sha256(bytes);
      await db.collection('receipts.chunks').insertOne({ files_id: new ObjectId(), n: 0, data: bytes.subarray(0, 1000) });
      expect(await store.has(key)).toBe(false);
      expect(await store.get(key)).toBeNull();
      expect(await store.put(bytes)).toEqual({ sha256: key, size: bytes.byteLength });
      expect((await store.get(key))!.equals(bytes)).toBe(true);
    });

    it('delete removes the files document and its chunks', async () => {
      const db = client.db(dbName);
      const bytes = randomBytes(600 * 1024);
      const key = sha256(bytes);
      await store.put(bytes);
      const file = await db.collection('receipts.files').findOne({ filename: key });
      expect(file).not.toBeNull();
      await store.delete(key);
      expect(await db.collection('receipts.files').countDocuments({ filename: key })).toBe(0);
      expect(await db.collection('receipts.chunks').countDocuments({ files_id: file!._id })).toBe(0);
    });
  });
}
