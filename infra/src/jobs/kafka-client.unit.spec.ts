import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { logLevel } from 'kafkajs';
import { kafkaClientConfig, kafkaLog, kafkaSettingProblems, type KafkaSettings } from './kafka-client';

const PASSWORD = 'pw-Zq81-never-shown';
const base: KafkaSettings = { KAFKA_BROKERS: 'k1:9093,k2:9093', KAFKA_SSL: false };
const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('Kafka client settings', () => {
  it('maps no TLS and no SASL to nothing (kafkajs defaults: plaintext)', () => {
    expect(kafkaClientConfig(base)).toEqual({});
  });

  it('maps KAFKA_SSL to TLS, with the CA file read when given', () => {
    expect(kafkaClientConfig({ ...base, KAFKA_SSL: true })).toEqual({ ssl: true });
    const dir = mkdtempSync(join(tmpdir(), 'kafka-ca-'));
    const file = join(dir, 'ca.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(kafkaClientConfig({ ...base, KAFKA_SSL: true, KAFKA_SSL_CA_FILE: file })).toEqual({ ssl: { ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] } });
  });

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)('maps SASL %s with its username and password', (mechanism) => {
    const { sasl, ssl } = kafkaClientConfig({ ...base, KAFKA_SSL: true, KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: 'paperlink', KAFKA_SASL_PASSWORD: PASSWORD });
    expect(ssl).toBe(true);
    expect(sasl).toMatchObject({ mechanism, username: 'paperlink' });
    // kafkajs reads the password by its name, as these do.
    expect((sasl as { password: string }).password).toBe(PASSWORD);
    const { password } = sasl as { password: string };
    expect(password).toBe(PASSWORD);
  });

  it('shows the password in no printed form of the client settings', () => {
    const config = kafkaClientConfig({ ...base, KAFKA_SSL: true, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'paperlink', KAFKA_SASL_PASSWORD: PASSWORD });
    for (const printed of [JSON.stringify(config), inspect(config, { depth: 5 }), inspect(config, { depth: 5, showHidden: false }), String(Object.values(config.sasl!)), JSON.stringify({ ...config.sasl })]) {
      expect(printed).not.toContain(PASSWORD);
    }
    expect(JSON.stringify(config)).toContain('paperlink');
  });

  it('finds settings that are wrong together, naming them and no secret', () => {
    expect(kafkaSettingProblems(base)).toEqual([]);
    expect(kafkaSettingProblems({ KAFKA_SSL: false })).toEqual([]);
    const problems = (s: Partial<KafkaSettings>) => kafkaSettingProblems({ ...base, ...s });
    expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: PASSWORD })).toEqual(['KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=scram-sha-256']);
    expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u' })).toEqual(['KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM=scram-sha-256']);
    expect(problems({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD })).toEqual([
      'KAFKA_SASL_USERNAME: set KAFKA_SASL_MECHANISM too (plain, scram-sha-256, scram-sha-512)',
      'KAFKA_SASL_PASSWORD: set KAFKA_SASL_MECHANISM too (plain, scram-sha-256, scram-sha-512)',
    ]);
    expect(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD })).toEqual([
      'KAFKA_SASL_MECHANISM: plain sends the password as it is; set KAFKA_SSL=true (or use scram-sha-256 or scram-sha-512)',
    ]);
    expect(problems({ KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' })).toEqual(['KAFKA_SSL_CA_FILE: set KAFKA_SSL=true too (the CA is used only over TLS)', 'KAFKA_SSL_CA_FILE: cannot read /nonexistent/ca.pem']);
    expect(problems({ KAFKA_BROKERS: ' , ' })).toEqual(['KAFKA_BROKERS: name at least one broker (host:port, comma-separated)']);
    expect(kafkaSettingProblems({ KAFKA_SSL: true, KAFKA_SASL_PASSWORD: PASSWORD })).toEqual([
      'KAFKA_SASL_PASSWORD: set KAFKA_BROKERS too (without it jobs run in this process and KAFKA_SASL_PASSWORD is not used)',
      'KAFKA_SSL: set KAFKA_BROKERS too (without it jobs run in this process and KAFKA_SSL is not used)',
    ]);
  });

  it('loadConfig reads the settings and refuses bad ones with clear messages that hold no password', () => {
    const ok = loadConfig({ KAFKA_BROKERS: 'k1:9093', KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD });
    expect(ok).toMatchObject({ KAFKA_SSL: true, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u' });
    expect(loadConfig({}).KAFKA_SSL).toBe(false);
    expect(configError({ KAFKA_BROKERS: 'k1:9093', KAFKA_SSL: 'yes' })).toContain('KAFKA_SSL: KAFKA_SSL must be true or false');
    const badMechanism = configError({ KAFKA_BROKERS: 'k1:9093', KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD });
    expect(badMechanism).toContain('KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512');
    const noUser = configError({ KAFKA_BROKERS: 'k1:9093', KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: PASSWORD });
    expect(noUser).toContain('KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=scram-sha-256');
    for (const message of [badMechanism, noUser]) expect(message).not.toContain(PASSWORD);
  });
});

describe('kafkajs log lines', () => {
  it('go to the product log, without the routine answers of normal work', () => {
    const lines: string[] = [];
    const log = kafkaLog((m) => lines.push(m))(logLevel.ERROR);
    const entry = (message: string, error?: string) => ({ namespace: 'Connection', level: logLevel.ERROR, label: 'ERROR', log: { timestamp: 'now', message, ...(error ? { error } : {}) } });
    log(entry('Response CreateTopics(key: 19, version: 3)', 'Topic creation errors'));
    log(entry('Response Heartbeat(key: 12, version: 3)', 'The group is rebalancing, so a rejoin is needed'));
    log(entry('Response Metadata(key: 3, version: 6)', 'This server does not host this topic-partition'));
    log(entry('Response Produce(key: 0, version: 7)', 'This server does not host this topic-partition'));
    log(entry('Response Produce(key: 0, version: 7)', 'The request included a message larger than the max message size the server will accept'));
    log(entry('Crash: KafkaJSNumberOfRetriesExceeded'));
    expect(lines).toEqual([
      'kafka Connection: Response Produce(key: 0, version: 7) (This server does not host this topic-partition)',
      'kafka Connection: Response Produce(key: 0, version: 7) (The request included a message larger than the max message size the server will accept)',
      'kafka Connection: Crash: KafkaJSNumberOfRetriesExceeded',
    ]);
  });
});
