/**
 * The services half of the composition root: what several features share (the command bus,
 * tokens, access checks, the worker pool, the OCR reader, the language-model chain, the
 * company's settings, the sign-in limits). Built once per process, closed with it.
 */
import { CommandBus, fingerprintKey, TokenService, type PasswordHasher } from '@paperlink/command-api';
import type { CompanySettings } from '@paperlink/domain';
import { companySettings } from '@paperlink/projections';
import { accountViews } from '@paperlink/query-api';
import type { Config } from '../config';
import { signingSecret } from '../data-dir';
import { openCounterStore } from '../limits';
import { accessReader } from '../http/access';
import { Argon2Hasher } from '../passwords';
import { WorkerPool } from '../workers/pool';
import { offThread, type OffThread } from '../workers/off-thread';
import { RequestActivity } from '../jobs/request-activity';
import { ModelChain } from '../llm/chain';
import { CompanyCategorizers } from '../ai/learning';
import type { ReceiptReader } from '../receipts/ocr-job';
import type { PaperlinkOptions } from './options';
import type { Stores } from './stores';

export interface Services {
  bus: CommandBus;
  tokens: TokenService;
  hasher: PasswordHasher;
  access: ReturnType<typeof accessReader>;
  views: ReturnType<typeof accountViews>;
  /** The data folder's signing secret (JWT_SECRET when set). */
  secret: string;
  workerPool: WorkerPool;
  /** CPU-heavy steps (CSV parsing, PDF checks and rendering, thumbnails), never on the request thread. */
  cpu: OffThread;
  /** Requests in flight: background jobs on this thread give way to them. */
  activity: RequestActivity;
  llm: ModelChain;
  categorizers: CompanyCategorizers;
  /** Receipt files read as receipts are read (the OCR pool, created on first use). */
  reader: ReceiptReader;
  settingsOf(companyId: string): Promise<CompanySettings>;
  limits: Awaited<ReturnType<typeof openLimits>>;
  close(): Promise<void>;
}

const openLimits = async (config: Config, stores: Stores) => ({
  // Sign-in limits in a store every process of the deployment shares (MongoDB, the folder's limits.sqlite, or memory for one process).
  store: await openCounterStore(config, stores.dir),
  perAddress: { limit: config.LOGIN_MAX_FAILURES_PER_ADDRESS, windowMs: config.LOGIN_ADDRESS_WINDOW_SECONDS * 1000 },
});

export async function openServices(config: Config, options: PaperlinkOptions, stores: Stores): Promise<Services> {
  const { events, readStore, runner } = stores;
  const secret = signingSecret(stores.dir, config.JWT_SECRET);
  const workerPool = new WorkerPool({ size: config.WORKER_THREADS });
  const cpu = offThread(workerPool);
  // The wait honours READ_SIDE_WAIT_MS and says whether the read models caught up; a decision
  // that reads them is refused (503) when they did not (requireCaughtUp, ADR 0023).
  const bus = new CommandBus(events, (position, maxMs) => runner.waitFor(position, Math.min(maxMs ?? config.READ_SIDE_WAIT_MS, config.READ_SIDE_WAIT_MS)), fingerprintKey(secret));
  // The language model: the company's primary and fallback hosted models (when a key is set),
  // then the company's own offline categoriser (trained in the worker pool), then "no model".
  const categorizers = new CompanyCategorizers(readStore, workerPool);
  const llm = new ModelChain({ apiKey: config.ANTHROPIC_API_KEY, baseURL: config.ANTHROPIC_BASE_URL, timeoutMs: config.LLM_TIMEOUT_MS, maxRetries: config.LLM_MAX_RETRIES, offline: categorizers.offline() });
  const reader = await receiptReader(config, options, stores, cpu);
  const limits = await openLimits(config, stores);
  return {
    bus, secret, workerPool, cpu, llm, categorizers, limits,
    reader: reader.reader,
    tokens: new TokenService(secret, config.ACCESS_TOKEN_TTL_SECONDS, config.REFRESH_TOKEN_TTL_SECONDS),
    hasher: options.hasher ?? new Argon2Hasher(),
    access: accessReader(readStore, async () => runner.waitFor(await events.headPosition(), config.READ_SIDE_WAIT_MS)),
    views: accountViews(readStore),
    activity: new RequestActivity(),
    settingsOf: (companyId) => companySettings(readStore, companyId),
    async close() {
      await workerPool.close();
      await reader.close();
      await limits.store.close();
    },
  };
}

/**
 * The OCR reader, created on its first file. Its modules are loaded at start where jobs read
 * receipts here: loading them through the TypeScript loader holds the request thread (over a
 * second for tesseract.js). A process that reads no receipt (a query process) refuses.
 */
async function receiptReader(config: Config, options: PaperlinkOptions, stores: Stores, cpu: OffThread): Promise<{ reader: ReceiptReader; close(): Promise<void> }> {
  let reader: ReceiptReader | undefined = options.reader;
  const reads = stores.runsHandlers || stores.runsReactors || (config.PAPERLINK_ROLE === 'command' && !options.noJobs);
  const readerModule = options.reader || !stores.runsHandlers ? undefined : await import('../receipts/reader');
  const lazy: ReceiptReader = {
    read: async (bytes, extract) => {
      if (!reads && !reader) throw new Error('OCR does not run in this process');
      let r = reader;
      if (!r) {
        const { createOcrReader } = readerModule ?? (await import('../receipts/reader'));
        r = reader = createOcrReader({ workers: config.OCR_WORKERS, pdf: cpu.pdf, fields: cpu.receiptFields, rereadLines: cpu.receiptRereadLines, ...(config.OCR_SECOND_LINE_READER === 'paddle' ? { secondLines: cpu.secondLines } : {}), log: (m) => console.warn(m) });
      }
      return r.read(bytes, extract);
    },
  };
  return {
    reader: lazy,
    close: async () => {
      if (reader && 'close' in reader) await (reader as { close(): Promise<void> }).close();
    },
  };
}
