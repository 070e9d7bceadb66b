import { inspect } from 'node:util';
import { logLevel, type logCreator } from 'kafkajs';
import { expect, it } from 'vitest';
import { KafkaJobQueue } from './kafka';
import { kafkaBrokers, kafkaClientConfig } from './kafka-client';
import { describeWithKafka } from './kafka-testing';

const PASSWORD = 'pw-Yx42-never-logged';

describeWithKafka('Kafka client settings against a real broker', (brokers) => {
  it('a SASL login the broker refuses fails with an error and logs that hold no password', async () => {
    const logged: string[] = [];
    const capture: logCreator = () => (entry) => logged.push(JSON.stringify(entry));
    const settings = { KAFKA_BROKERS: brokers().join(','), KAFKA_SSL: false, KAFKA_SASL_MECHANISM: 'scram-sha-256' as const, KAFKA_SASL_USERNAME: 'paperlink', KAFKA_SASL_PASSWORD: PASSWORD };
    const client = { ...kafkaClientConfig(settings), logLevel: logLevel.DEBUG, logCreator: capture, retry: { retries: 0 }, connectionTimeout: 3000, authenticationTimeout: 3000 };
    const failure = await KafkaJobQueue.connect({ brokers: kafkaBrokers(settings), clientId: 'paperlink-test', client, log: (m) => logged.push(m) }).then(
      async (q) => {
        await q.close();
        return undefined;
      },
      (e: unknown) => e as Error,
    );
    // The broker's listener takes no SASL: the login is refused, as a wrong password would be.
    expect(failure).toBeInstanceOf(Error);
    expect(logged.length).toBeGreaterThan(0);
    const everything = [failure!.message, failure!.stack ?? '', inspect(failure, { depth: 10 }), JSON.stringify(failure), ...logged].join('\n');
    expect(everything).toMatch(/SASL|sasl/);
    expect(everything).not.toContain(PASSWORD);
  });
});
