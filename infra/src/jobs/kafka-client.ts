/**
 * The kafkajs client settings from KAFKA_* (config.ts): the brokers, TLS (KAFKA_SSL, with a CA
 * of its own in KAFKA_SSL_CA_FILE) and SASL (KAFKA_SASL_MECHANISM, _USERNAME, _PASSWORD). The
 * password is kept out of every message, log and printed object: no problem message names its
 * value, and the object handed to kafkajs holds it in a property that neither JSON nor
 * util.inspect shows.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import type { KafkaConfig, logCreator, SASLOptions } from 'kafkajs';

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaSettings {
  KAFKA_BROKERS?: string;
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE?: string;
  KAFKA_SASL_MECHANISM?: SaslMechanism;
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
}

export const kafkaBrokers = (s: Pick<KafkaSettings, 'KAFKA_BROKERS'>): string[] =>
  (s.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);

/** What is wrong with the settings taken together, one line each as `NAME: message` (no value of a secret). */
export function kafkaSettingProblems(s: KafkaSettings): string[] {
  const problems: string[] = [];
  const saslSet = ['KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const;
  const set = (name: keyof KafkaSettings) => s[name] !== undefined && s[name] !== '';
  if (s.KAFKA_BROKERS !== undefined && kafkaBrokers(s).length === 0) problems.push('KAFKA_BROKERS: name at least one broker (host:port, comma-separated)');
  if (!set('KAFKA_BROKERS')) {
    for (const name of ['KAFKA_SSL_CA_FILE', ...saslSet] as const) if (set(name)) problems.push(`${name}: set KAFKA_BROKERS too (without it jobs run in this process and ${name} is not used)`);
    if (s.KAFKA_SSL) problems.push('KAFKA_SSL: set KAFKA_BROKERS too (without it jobs run in this process and KAFKA_SSL is not used)');
    return problems;
  }
  if (set('KAFKA_SSL_CA_FILE')) {
    if (!s.KAFKA_SSL) problems.push('KAFKA_SSL_CA_FILE: set KAFKA_SSL=true too (the CA is used only over TLS)');
    try {
      accessSync(s.KAFKA_SSL_CA_FILE!, constants.R_OK);
    } catch {
      problems.push(`KAFKA_SSL_CA_FILE: cannot read ${s.KAFKA_SSL_CA_FILE}`);
    }
  }
  if (set('KAFKA_SASL_MECHANISM')) {
    if (!set('KAFKA_SASL_USERNAME')) problems.push(`KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=${s.KAFKA_SASL_MECHANISM}`);
    if (!set('KAFKA_SASL_PASSWORD')) problems.push(`KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM=${s.KAFKA_SASL_MECHANISM}`);
    if (s.KAFKA_SASL_MECHANISM === 'plain' && !s.KAFKA_SSL) problems.push('KAFKA_SASL_MECHANISM: plain sends the password as it is; set KAFKA_SSL=true (or use scram-sha-256 or scram-sha-512)');
  } else {
    for (const name of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const) {
      if (set(name)) problems.push(`${name}: set KAFKA_SASL_MECHANISM too (${SASL_MECHANISMS.join(', ')})`);
    }
  }
  return problems;
}

/** SASL options whose password kafkajs reads but no JSON, inspect or spread shows. */
function saslOptions(mechanism: SaslMechanism, username: string, password: string): SASLOptions {
  const sasl = { mechanism, username } as SASLOptions;
  Object.defineProperty(sasl, 'password', { value: password, enumerable: false });
  return sasl;
}

/** The kafkajs client settings besides brokers and client id (valid settings: see kafkaSettingProblems). */
export function kafkaClientConfig(s: KafkaSettings, readFile: (file: string) => string = (f) => readFileSync(f, 'utf8')): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const config: Pick<KafkaConfig, 'ssl' | 'sasl'> = {};
  if (s.KAFKA_SSL) config.ssl = s.KAFKA_SSL_CA_FILE ? { ca: [readFile(s.KAFKA_SSL_CA_FILE)] } : true;
  if (s.KAFKA_SASL_MECHANISM) config.sasl = saslOptions(s.KAFKA_SASL_MECHANISM, s.KAFKA_SASL_USERNAME ?? '', s.KAFKA_SASL_PASSWORD ?? '');
  return config;
}

/**
 * Answers kafkajs logs at ERROR that are part of normal work: a topic the queue creates exists
 * already, a topic just created is not in the broker's metadata yet (waited for, kafka-retry.ts),
 * a group rebalances because a worker joined or left.
 */
const ROUTINE: Array<[RegExp, RegExp]> = [
  [/^Response CreateTopics/, /^Topic creation errors$/],
  [/^Response Metadata/, /^This server does not host this topic-partition$/],
  [/./, /group is rebalancing/i],
];

/** kafkajs's log lines, through the product's log, without the routine ones. */
export function kafkaLog(log: (msg: string) => void): logCreator {
  return () => ({ namespace, log: entry }) => {
    const { message, error } = entry as { message: string; error?: string };
    if (error !== undefined && ROUTINE.some(([m, e]) => m.test(message) && e.test(error))) return;
    log(`kafka ${namespace}: ${message}${error !== undefined && error !== message ? ` (${error})` : ''}`);
  };
}
