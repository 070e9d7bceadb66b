/**
 * PAPERLINK_ROLE=worker: job handlers in processes of their own, fed by Kafka. A projector, a
 * command process and two workers (each a Paperlink of its role in this test process) share one
 * data folder (SQLite event store and read models) and a broker under a topic prefix of this run.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaperlink } from '../app';
import { loadConfig } from '../config';
import type { ReceiptReader } from '../receipts/ocr-job';
import { OCR_JOB } from '../receipts/ocr-job';
import { invite, registerAccount, startApi, type Api } from '../../../test/support/harness';
import { imageOf, labelledReader, labels } from '../../../test/support/labelled-reader';
import type { KafkaJobQueue } from './kafka';
import { describeWithKafka, until } from './kafka-testing';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('PAPERLINK_ROLE=worker without Kafka', () => {
  it('is refused at start, saying what to set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paperlink-worker-'));
    try {
      await expect(createPaperlink(loadConfig({ DATA_DIR: dir, PAPERLINK_ROLE: 'worker', JWT_SECRET: 'x'.repeat(40) }))).rejects.toThrow(/PAPERLINK_ROLE=worker runs the jobs it takes from Kafka: set KAFKA_BROKERS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithKafka('PAPERLINK_ROLE=worker on Kafka', (brokers) => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-workers-'));
  let projector: Api;
  let command: Api;
  const workers: Api[] = [];
  /** Which process read which file (by its hash). */
  const readers = new Map<string, string[]>();
  let failingSha = '';
  const readerOf = (name: string): ReceiptReader => {
    const labelled = labelledReader();
    return {
      read: async (bytes, options) => {
        const key = sha(bytes);
        readers.set(key, [...(readers.get(key) ?? []), name]);
        if (key === failingSha) throw new Error('engine crashed on this file');
        return labelled.read(bytes, options);
      },
    };
  };

  beforeAll(async () => {
    const env = {
      KAFKA_BROKERS: brokers().join(','), KAFKA_TOPIC_PREFIX: `pltest-${randomUUID().slice(0, 8)}`, READ_STORE: 'sqlite', JWT_SECRET: 'workers-test-secret-workers-test-secret-0123',
      WORKER_THREADS: '1', OCR_WORKERS: '1', READ_SIDE_WAIT_MS: '2000',
    } as const;
    // The projector first: it creates the files and owns the folder's lock.
    projector = await startApi({ ...env, PAPERLINK_ROLE: 'projector' }, dir, { reader: readerOf('projector') });
    command = await startApi({ ...env, PAPERLINK_ROLE: 'command' }, dir);
    for (const name of ['worker-1', 'worker-2']) workers.push(await startApi({ ...env, PAPERLINK_ROLE: 'worker' }, dir, { reader: readerOf(name) }));
    // Both workers hold partitions of the OCR topic before any receipt comes.
    const queues = workers.map((w) => w.paperlink.adapters.jobs as KafkaJobQueue);
    await until(() => queues.every((q) => q.partitions(OCR_JOB).length > 0) && new Set(queues.flatMap((q) => q.partitions(OCR_JOB))).size === 6, 60_000, 'both workers in the OCR group');
  }, 120_000);
  afterAll(async () => {
    for (const a of [...workers, command, projector]) await a?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a worker answers /api/health only; the projector runs no job handler', async () => {
    const worker = workers[0]!;
    expect((await worker.http.get('/api/health')).status).toBe(200);
    const refused = await worker.http.post('/api/auth/register').send({});
    expect(refused.status).toBe(421);
    expect(refused.body.code).toBe('wrong_process');
    expect((await worker.http.get('/api/receipts')).status).toBe(421);
    expect((projector.paperlink.adapters.jobs as KafkaJobQueue).partitions(OCR_JOB)).toEqual([]);
  });

  it('the workers share the OCR jobs, each runs once; a receipt whose reading fails is shown to admins as a failed job', async () => {
    const admin = await registerAccount(command);
    const files = labels.slice(0, 12).map((l) => imageOf(l.id));
    const broken = imageOf(labels[12]!.id);
    failingSha = sha(broken);
    const ids: string[] = [];
    for (const bytes of [...files, broken]) {
      const res = await command.http.post('/api/receipts/upload').set(admin.headers()).attach('receipt', bytes, 'r.jpg');
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.receipt.id as string);
    }
    const statusOf = async (id: string) => ((await command.http.get(`/api/receipts/${id}`).set(admin.headers())).body.receipt as { processing_status: string }).processing_status;
    await until(async () => (await Promise.all(ids.map(statusOf))).every((s) => s === 'completed' || s === 'failed'), 90_000, 'every receipt read or failed');
    expect(await Promise.all(ids.slice(0, 12).map(statusOf))).toEqual(ids.slice(0, 12).map(() => 'completed'));
    expect(await statusOf(ids[12]!)).toBe('failed');

    // Each good file read once, by a worker; both workers read some; the projector none.
    const byFile = files.map((f) => readers.get(sha(f)) ?? []);
    expect(byFile.every((r) => r.length === 1)).toBe(true);
    const who = new Set(byFile.flat());
    expect(who.has('projector')).toBe(false);
    expect([...who].sort(), 'both workers read receipts').toEqual(['worker-1', 'worker-2']);
    expect(readers.get(failingSha)).toHaveLength(3);

    // The failed job reaches the System page's list (admins of its company only).
    let failures: Array<{ type: string; attempts: number; error: string }> = [];
    await until(async () => {
      const res = await command.http.get('/api/system/job-failures').set(admin.headers());
      failures = res.body.failures;
      return failures.length > 0;
    }, 30_000, 'the failed job on the System page');
    expect(failures).toEqual([expect.objectContaining({ type: OCR_JOB, attempts: 3, error: 'engine crashed on this file' })]);
    const member = await registerAccount(command);
    await invite(command, admin, member);
    expect((await command.http.get('/api/system/job-failures').set(member.headers(admin.companyId))).status).toBe(403);
    const other = await registerAccount(command);
    expect((await command.http.get('/api/system/job-failures').set(other.headers())).body).toEqual({ queue: 'kafka', failures: [] });
  }, 150_000);
});
