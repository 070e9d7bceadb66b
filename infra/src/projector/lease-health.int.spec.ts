import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '@paperlink/projections';
import { createPaperlink, type Paperlink } from '../app';
import { loadConfig } from '../config';

const url = process.env.MONGO_URL;
const skip = url ? undefined : 'MONGO_URL is not set (a MongoDB or FerretDB server: make test-distributed starts one)';
if (skip && process.env.CI === 'true') throw new Error(`projector lease health suite: ${skip}; under CI=true it must run`);

/** A projection that stops on its first event (a bug in a projector). */
const broken: Projection = {
  name: 'broken',
  version: 1,
  collections: { broken_docs: [] },
  handles: new Set(['Broken']),
  async apply() {
    throw new Error('this projection cannot apply its event');
  },
};

const until = async (check: () => Promise<boolean> | boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
};

/** Counts its events: a projection that works. */
const counted: Projection = {
  name: 'counted',
  version: 1,
  collections: { counted_docs: [] },
  handles: new Set(['Counted']),
  async apply(event, view) {
    await view.update('counted_docs', 'all', (d) => ({ _id: 'all', n: ((d?.n as number | undefined) ?? 0) + 1 }));
  },
};

const event = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: { occurredAt: new Date().toISOString() } });

describe.skipIf(skip !== undefined)(`health and the projector lease across processes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-lease-health-'));
  const db = `paperlink_health_${Date.now()}`;
  const started: Paperlink[] = [];
  const start = async (role: 'projector' | 'query', database = db) => {
    const config = loadConfig({ DATA_DIR: dir, MONGO_URL: url!, MONGO_DB: database, PAPERLINK_ROLE: role, JWT_SECRET: 'lease-health-secret-0123456789abcdef-0123456789', WORKER_THREADS: '1', WEB_DIST: join(dir, 'none') });
    const p = await createPaperlink(config, { noJobs: true, projections: [counted, broken] });
    started.push(p);
    return p;
  };
  const health = async (p: Paperlink) => (await request(p.app).get('/api/health')).status;

  afterAll(async () => {
    for (const p of started) await p.close().catch(() => undefined);
    const client = await MongoClient.connect(url!);
    await client.db(db).dropDatabase();
    await client.db(`${db}_alone`).dropDatabase();
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 in a process that reads the read models while no projector holds the lease', async () => {
    const query = await start('query', `${db}_alone`);
    expect(await health(query)).toBe(503);
    const projector = await start('projector', `${db}_alone`);
    expect(await health(projector)).toBe(200);
    expect(await until(async () => (await health(query)) === 200, 5000)).toBe(true);
    await projector.close(); // the lease is released
    expect(await until(async () => (await health(query)) === 503, 5000)).toBe(true);
  }, 60_000);

  describe('an active projector, a standby and a query process', () => {
    let active: Paperlink;
    let standby: Paperlink;
    let query: Paperlink;

    beforeAll(async () => {
      active = await start('projector');
      standby = await start('projector');
      query = await start('query');
    }, 120_000);

    it('answers 200 in every process while one projector holds the lease, a standby beside it', async () => {
      expect(await health(active)).toBe(200);
      expect(await health(standby)).toBe(200);
      expect(await health(query)).toBe(200);
      expect(standby.runner.position).toBe(0);
    });

    it('hands the projections to the standby when the active projector stops', async () => {
      await active.close();
      const { position } = await query.adapters.events.appendToStream(`counted-${randomUUID()}`, [event('Counted')], 'no_stream');
      expect(await standby.runner.waitFor(position, 10_000)).toBe(true);
      expect(await query.runner.waitFor(position, 5000)).toBe(true);
      expect(await health(standby)).toBe(200);
      expect(await health(query)).toBe(200);
    }, 30_000);

    it('answers 503 everywhere once the active projector\'s projections stop', async () => {
      await query.adapters.events.appendToStream(`broken-${randomUUID()}`, [event('Broken')], 'no_stream');
      expect(await until(async () => (await health(standby)) === 503, 10_000)).toBe(true);
      // Told to the other processes through the lease (its next renewal, their next look).
      expect(await until(async () => (await health(query)) === 503, 10_000)).toBe(true);
    }, 30_000);
  });
});
