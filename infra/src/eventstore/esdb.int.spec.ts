import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '@paperlink/domain';
import { positionAt } from '@paperlink/query-api';
import { externalTarget } from '../testing/external';
import { eventStoreContract } from './contract';
import { EsdbEventStore } from './esdb';

const NAME = 'EventStoreDB (@eventstore/db-client)';
const target = externalTarget('EVENTSTORE_URL');
/** What only EventStoreDB needs shown (ADR 0016), beside the contract every store passes. */
const LIMITS = 'EventStoreDB: appends over MaxAppendSize, as-of positions';

if ('skip' in target) {
  console.warn(`SKIPPED event store contract: ${NAME}: ${target.skip}`);
  describe.skip(`event store contract: ${NAME} (skipped: ${target.skip})`, () => {
    it('runs the event store contract against a real EventStoreDB', () => {});
  });
  describe.skip(`${LIMITS} (skipped: ${target.skip})`, () => {
    it('writes an append of 3 MB in chunks under the server limit, at consecutive revisions', () => {});
    it('finds a moment’s position by real positions', () => {});
  });
} else {
  let stop: (() => Promise<unknown>) | undefined;
  let url: Promise<string> | undefined;
  /** One server for both suites: the one EVENTSTORE_URL names, else a container. */
  const serverUrl = () => (url ??= (async () => {
    if ('url' in target) return target.url;
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('eventstore/eventstore:latest')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forLogMessage(/IS LEADER|Sub System.*initialized/i))
      .start();
    stop = () => container.stop();
    return `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  })());
  afterAll(async () => stop?.());
  eventStoreContract(NAME, async () => new EsdbEventStore(await serverUrl()));

  describe(LIMITS, () => {
    let store: EsdbEventStore;
    beforeAll(async () => {
      store = new EsdbEventStore(await serverUrl(), { maxAppendBytes: 1024 * 1024 });
    });
    afterAll(async () => store?.close());
    const ev = (type: string, data: unknown, at = new Date()): NewEvent => ({ id: randomUUID(), type, data, metadata: { occurredAt: at.toISOString(), requestId: 'r1' } });

    it('writes an append of 3 MB in chunks under the server limit, at consecutive revisions', async () => {
      const s = `limits-${randomUUID().replace(/-/g, '')}`;
      const events = Array.from({ length: 12 }, (_, i) => ev('TransactionsImported', { part: i, rows: 'x'.repeat(250_000) }));
      const result = await store.appendToStream(s, events, 'no_stream');
      const back = await store.readStream(s);
      expect(back.map((e) => e.id)).toEqual(events.map((e) => e.id));
      expect(result).toEqual({ nextExpectedRevision: 11, position: back[11]!.position });
      // Sent again whole: every chunk is recognised as a retry.
      expect(await store.appendToStream(s, events, 'no_stream')).toEqual(result);
      expect(await store.readStream(s)).toHaveLength(12);
    });

    it('finds a moment’s position by real positions', async () => {
      const s = `asof-${randomUUID().replace(/-/g, '')}`;
      const t = Date.now();
      await store.appendToStream(s, [ev('A', {}, new Date(t - 2000)), ev('B', {}, new Date(t - 1000)), ev('C', {}, new Date(t))], 'no_stream');
      const [a, b] = await store.readStream(s);
      expect(await positionAt(store, new Date(t - 1500))).toBe(a!.position);
      expect(await positionAt(store, new Date(t - 1000))).toBe(b!.position);
    });
  });
}
