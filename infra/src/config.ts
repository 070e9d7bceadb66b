import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { esdbConnectionProblem } from './eventstore/esdb-connection';
import { kafkaSettingProblems, SASL_MECHANISMS } from './jobs/kafka-client';

/** Every environment variable the product reads; validated once at start. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(30 * 24 * 3600),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  LOGIN_ADDRESS_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  SNAPSHOT_INTERVAL_SECONDS: z.coerce.number().min(1).default(30),
  WEB_DIST: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
  /**
   * EventStoreDB: `esdb://host:2113` or a seed list of cluster nodes (`esdb://a:2113,b:2113,c:2113?tls=true`),
   * checked by the client's own parser (a seed list is no URL) and given to it unchanged.
   */
  EVENTSTORE_URL: z.string().superRefine((url, ctx) => {
    const problem = esdbConnectionProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: `not an EventStoreDB connection string: ${problem}` });
  }).optional(),
  /** Bytes one append to EventStoreDB carries at most; larger ones are split (ADR 0016). At most the server's MaxAppendSize (1 MiB by default before KurrentDB 25.1). */
  EVENTSTORE_MAX_APPEND_BYTES: z.coerce.number().int().min(64 * 1024).max(256 * 1024 * 1024).default(1024 * 1024),
  MONGO_URL: z.string().optional(),
  MONGO_DB: z.string().default('paperlink'),
  /** Embedded read models without MONGO_URL: in SQLite on disk (readmodels.sqlite), or in memory with a snapshot file (ADR 0020). */
  READ_STORE: z.enum(['sqlite', 'memory']).default('sqlite'),
  /**
   * Where the projectors run in role `all` with the SQLite read store (ADR 0008): `thread`, a
   * worker thread with its own SQLite connections (the request thread only appends, reads and
   * answers), or `inline` on the request thread. The in-memory read store and MongoDB are inline.
   */
  PROJECTOR: z.enum(['thread', 'inline']).default('thread'),
  KAFKA_BROKERS: z.string().optional(),
  /** What every Kafka topic and consumer group of the job queue begins with: installations (or test runs) sharing a broker keep apart. */
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]{1,40}$/, 'KAFKA_TOPIC_PREFIX: letters, digits, . _ - only, at most 40').default('paperlink'),
  /** TLS to the brokers; KAFKA_SSL_CA_FILE: a PEM file of the CA that signed their certificates (else the system's). */
  KAFKA_SSL: z.enum(['true', 'false'], { message: 'KAFKA_SSL must be true or false' }).default('false').transform((v) => v === 'true'),
  KAFKA_SSL_CA_FILE: z.string().optional(),
  /** SASL to the brokers (kafka-client.ts checks these together); the password is never logged. */
  KAFKA_SASL_MECHANISM: z.enum(SASL_MECHANISMS, { message: `KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}` }).optional(),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: z.string().optional(),
  /**
   * What this process does (ADR 0025): `all` (default) everything; `command`
   * the API's writes (and reads), appending events; `query` the API's reads only, from the read
   * store another process keeps; `projector` the projections, reactors and (without Kafka) the job handlers, with
   * /api/health only; `worker` the job handlers (OCR, auto-match) only, taking jobs from Kafka
   * (any number of workers share them; with KAFKA_BROKERS the projector then runs no handler),
   * with /api/health only. The roles share the event store and the read store: EventStoreDB and
   * MongoDB, or the embedded SQLite files of one data folder.
   */
  PAPERLINK_ROLE: z.enum(['all', 'command', 'query', 'projector', 'worker']).default('all'),
  ANTHROPIC_API_KEY: z.string().optional(),
  /** Another host speaking Anthropic's API (a proxy; tests use a local server). */
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  /** Per attempt of a language-model call, ms; the SDK retries time-outs and 5xx/529 LLM_MAX_RETRIES times before the next model. */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  LOG_REQUESTS: z.enum(['0', '1']).default('0'),
  /** OCR jobs at once (each holds a tesseract worker of about 200 MB); default: the cores. */
  OCR_WORKERS: z.coerce.number().int().min(1).max(32).default(Math.max(1, Math.min(4, availableParallelism()))),
  /**
   * The second reader of a doubtful total's and date's lines (ADR 0019 fourth amendment):
   * PaddleOCR's recogniser in the worker threads, or none.
   */
  OCR_SECOND_LINE_READER: z.enum(['paddle', 'off']).default('paddle'),
  /** Worker threads for CPU-heavy steps (CSV parsing, PDF checks and rendering, thumbnails). */
  WORKER_THREADS: z.coerce.number().int().min(1).max(32).default(Math.max(2, Math.min(4, availableParallelism()))),
  /** Transactions one statement import takes at most; a larger file is refused with both figures. */
  MAX_IMPORT_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(200_000),
  /** Statement files from this size on are parsed, decided and made into events in the event store's writer thread (SQLite event store, ADR 0008); smaller ones on the request thread. */
  IMPORT_STAGE_BYTES: z.coerce.number().int().min(0).default(1024 * 1024),
  /** Imports of more new rows than this answer without waiting for their projection (ADR 0030). */
  IMPORT_ANSWER_WAIT_ROWS: z.coerce.number().int().min(0).default(25_000),
  /**
   * How long a command waits for the read models to hold every earlier event before it decides
   * on them; past it the command is refused with 503 and Retry-After (ADR 0023). Also the
   * read-your-writes wait after an append.
   */
  READ_SIDE_WAIT_MS: z.coerce.number().int().min(10).max(60_000).default(5000),
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  // Processes of other roles must sign and check tokens, and key the shared limits, with one key:
  // without JWT_SECRET each would use the key file of its own data folder (or make one).
  if (parsed.data.PAPERLINK_ROLE !== 'all' && !parsed.data.JWT_SECRET) {
    throw new Error(`Invalid environment:\n  JWT_SECRET: required when PAPERLINK_ROLE is ${parsed.data.PAPERLINK_ROLE} (set the same secret, at least 32 characters, for every process)`);
  }
  // Settings that are wrong only together (they name no secret's value).
  const problems = kafkaSettingProblems(parsed.data);
  if (problems.length > 0) throw new Error(`Invalid environment:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return parsed.data;
}
