import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Api } from '../../../test/support/harness';
import { imageOf, labelledReader, labels } from '../../../test/support/labelled-reader';
import { describeWithKafka, until } from '../jobs/kafka-testing';

const apis: Api[] = [];
afterEach(async () => {
  for (const a of apis.splice(0)) await a.close();
});

describe('GET /system/job-failures with the in-process queue', () => {
  it('answers admins with no dead letters (the failure shows on what failed) and refuses other members', async () => {
    const api = await startApi({}, undefined, { reader: labelledReader() });
    apis.push(api);
    const admin = await registerAccount(api);
    expect((await api.http.get('/api/system/job-failures').set(admin.headers())).body).toEqual({ queue: 'in-process', failures: [] });
    const member = await registerAccount(api);
    await invite(api, admin, member);
    expect((await api.http.get('/api/system/job-failures').set(member.headers(admin.companyId))).status).toBe(403);
    expect((await api.http.get('/api/system/job-failures')).status).toBe(401);
  });
});

describeWithKafka('GET /system/job-failures, one process (role all) on Kafka', (brokers) => {
  it('lists the OCR job that failed its last attempt, from the dead-letter topic', async () => {
    const failing = labelledReader({ failing: () => true });
    const api = await startApi({ KAFKA_BROKERS: brokers().join(','), KAFKA_TOPIC_PREFIX: `pltest-${randomUUID().slice(0, 8)}`, WORKER_THREADS: '1', OCR_WORKERS: '1' }, undefined, { reader: failing });
    apis.push(api);
    expect(api.paperlink.projectorThread).toBe(true); // the reactors run in the projector thread, the dead-letter model here
    const admin = await registerAccount(api);
    const upload = await api.http.post('/api/receipts/upload').set(admin.headers()).attach('receipt', imageOf(labels[0]!.id), 'r.jpg');
    expect(upload.status).toBe(201);
    let body: { queue: string; failures: Array<Record<string, unknown>> } = { queue: '', failures: [] };
    await until(async () => {
      body = (await api.http.get('/api/system/job-failures').set(admin.headers())).body;
      return body.failures.length > 0;
    }, 45_000, 'the failed OCR job');
    expect(body.queue).toBe('kafka');
    expect(body.failures).toEqual([expect.objectContaining({ type: 'receipt.ocr', attempts: 3, error: 'engine crashed' })]);
    expect(failing.calls).toBe(3);
    const receipt = (await api.http.get(`/api/receipts/${upload.body.receipt.id}`).set(admin.headers())).body.receipt;
    expect(receipt.processing_status).toBe('failed');
  }, 90_000);
});
