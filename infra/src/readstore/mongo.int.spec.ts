import { afterAll, describe, it } from 'vitest';
import { externalTarget } from '../testing/external';
import { readStoreContract } from './contract';
import { MongoReadStore } from './mongo';

const NAME = 'MongoDB (mongodb driver)';
const target = externalTarget('MONGO_URL');

if ('skip' in target) {
  console.warn(`SKIPPED read store contract: ${NAME}: ${target.skip}`);
  describe.skip(`read store contract: ${NAME} (skipped: ${target.skip})`, () => {
    it('runs the read store contract against a real MongoDB', () => {});
  });
} else {
  let stop: (() => Promise<unknown>) | undefined;
  afterAll(async () => stop?.());
  const db = `paperlink_contract_${Date.now()}`;
  readStoreContract(NAME, async () => {
    if ('url' in target) return MongoReadStore.connect(target.url, db);
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('mongo:7')
      .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();
    await container.exec(['mongosh', '--quiet', '--eval', 'rs.initiate({_id:"rs0",members:[{_id:0,host:"localhost:27017"}]})']);
    stop = () => container.stop();
    return MongoReadStore.connect(`mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`, db);
  });
}
