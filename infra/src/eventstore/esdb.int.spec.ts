import { afterAll, describe, it } from 'vitest';
import { externalTarget } from '../testing/external';
import { eventStoreContract } from './contract';
import { EsdbEventStore } from './esdb';

const NAME = 'EventStoreDB (@eventstore/db-client)';
const target = externalTarget('EVENTSTORE_URL');

if ('skip' in target) {
  console.warn(`SKIPPED event store contract: ${NAME}: ${target.skip}`);
  describe.skip(`event store contract: ${NAME} (skipped: ${target.skip})`, () => {
    it('runs the event store contract against a real EventStoreDB', () => {});
  });
} else {
  let stop: (() => Promise<unknown>) | undefined;
  afterAll(async () => stop?.());
  eventStoreContract(NAME, async () => {
    if ('url' in target) return new EsdbEventStore(target.url);
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('eventstore/eventstore:latest')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forLogMessage(/IS LEADER|Sub System.*initialized/i))
      .start();
    stop = () => container.stop();
    return new EsdbEventStore(`esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`);
  });
}
