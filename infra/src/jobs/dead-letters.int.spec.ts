import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import type { Job, ReadStore, WriteSet } from '@paperlink/domain';
import { EmbeddedReadStore } from '../readstore/embedded';
import { jobFailuresOf, JOB_FAILURES } from './dead-letters';
import { KafkaJobQueue } from './kafka';
import { describeWithKafka, until } from './kafka-testing';

/** The store, counting the documents each commit writes. */
function counting(store: ReadStore): { store: ReadStore; written: () => number } {
  let written = 0;
  const wrapped = Object.create(store) as ReadStore;
  wrapped.commit = (writes: WriteSet, checkpoints) => {
    written += writes.get(JOB_FAILURES)?.size ?? 0;
    return store.commit(writes, checkpoints);
  };
  return { store: wrapped, written: () => written };
}

describeWithKafka('failed jobs read model, from the dead-letter topic', (brokers) => {
  const closing: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('lists a company’s failed jobs newest first; goes on from its checkpoint after a restart; a new store rebuilds the same list', async () => {
    // A prefix of this run alone: the dead-letter topic holds this test's letters only.
    const prefix = `pltest-${randomUUID().slice(0, 8)}`;
    const q = await KafkaJobQueue.connect({ brokers: brokers(), clientId: 'paperlink-test', topicPrefix: prefix, partitions: 1, log: () => {} });
    closing.push(() => q.close());
    q.register<{ file: string }>('receipt.ocr', { run: async (j) => { throw new Error(`no text in ${j.payload.file}`); }, onFailed: async () => {} }, { maxAttempts: 2, backoffMs: { base: 20, max: 20 } });
    const job = (companyId: string, file: string): Job => ({ id: `job-${randomUUID()}`, type: 'receipt.ocr', companyId, payload: { file }, causationId: `event-${file}`, correlationId: 'r1', attempt: 1 });
    const [a1, b1, a2] = [job('company-a', 'a1.jpg'), job('company-b', 'b1.jpg'), job('company-a', 'a2.jpg')];
    for (const j of [a1, b1, a2]) expect(await q.submit(j)).toBe('failed');

    const store = new EmbeddedReadStore();
    const first = q.deadLetterProjector(store, { groupId: `${prefix}-g1` });
    await first.start();
    await until(async () => (await jobFailuresOf(store, 'company-a')).length === 2 && (await jobFailuresOf(store, 'company-b')).length === 1, 30_000, 'three failed jobs');
    const view = (j: Job) => ({ id: j.id, type: 'receipt.ocr', attempts: 2, error: `no text in ${(j.payload as { file: string }).file}`, failedAt: expect.any(String), causationId: j.causationId });
    const listA = await jobFailuresOf(store, 'company-a');
    expect(listA).toEqual([view(a2), view(a1)]);
    expect(Date.parse(listA[0]!.failedAt)).toBeGreaterThanOrEqual(Date.parse(listA[1]!.failedAt));
    expect(await jobFailuresOf(store, 'company-b')).toEqual([view(b1)]);
    expect((await store.getCheckpoints()).find((c) => c.name === 'dead-letters:0')?.position).toBe(3);
    await first.stop();

    // A restart in a new group (no group offsets): it reads from its stored checkpoint, so only the new letter is written.
    const a3 = job('company-a', 'a3.jpg');
    expect(await q.submit(a3)).toBe('failed');
    const counted = counting(store);
    const again = q.deadLetterProjector(counted.store, { groupId: `${prefix}-g2` });
    await again.start();
    await until(async () => (await jobFailuresOf(store, 'company-a')).length === 3, 30_000, 'the fourth failed job');
    expect(counted.written()).toBe(1);
    expect((await jobFailuresOf(store, 'company-a')).map((f) => f.id)).toEqual([a3.id, a2.id, a1.id]);

    // A rebuild: an empty store reads the topic from its first offset and holds the same list.
    const fresh = new EmbeddedReadStore();
    const rebuild = q.deadLetterProjector(fresh, { groupId: `${prefix}-g3` });
    await rebuild.start();
    await until(async () => (await jobFailuresOf(fresh, 'company-a')).length === 3, 30_000, 'the rebuilt list');
    expect(await jobFailuresOf(fresh, 'company-a')).toEqual(await jobFailuresOf(store, 'company-a'));
    expect(await jobFailuresOf(fresh, 'company-b')).toEqual(await jobFailuresOf(store, 'company-b'));
  });
});
