import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import express from 'express';
import type { EventStore } from '@paperlink/domain';
import { PRINT_COPY } from '@paperlink/domain';
import {
  accountRouter,
  authenticate,
  CommandBus,
  commandOperations,
  refuseReadOnlyWrites,
  companyRouter,
  errorHandler,
  loggableUrl,
  fingerprintKey,
  jsonDepthLimit,
  masterDataRouter,
  notFound,
  publicAccountRouter,
  importRouter,
  requestContext,
  requireCompany,
  transactionRouter,
  receiptRouter,
  receiptUploadTargetRouter,
  matchRouter,
  settingsRouter,
  llmTestRouter,
  aiLearningRouter,
  type MatchDeps,
  freshRead,
  readSideCurrent,
  TokenService,
  type PasswordHasher,
} from '@paperlink/command-api';
import { allProjections, GenerationalReadStore, ProjectionRunner, type Projection } from '@paperlink/projections';
import { accountQueryRouter, accountViews, analyticsQueryRouter, AsOfReplayer, asOfReads, exportRouter, historyRouter, masterDataQueryRouter, matchQueryRouter, queryOperations, receiptQueryRouter, transactionQueryRouter } from '@paperlink/query-api';
import { EmbeddedReadStore } from './readstore/embedded';
import {
  getMasterItem, getMatch, getReceipt, getTransaction, getUsers, membersOfCompany, RECEIPTS, receiptsWithBytes, toReceiptViews, toTransactionViews,
  TRANSACTION_KEYS, transactionKeyId, TRANSACTIONS, type ReceiptDoc, type TransactionDoc, type TransactionKeyDoc,
} from '@paperlink/projections';
import type { ReceiptReader } from './receipts/ocr-job';
import { dateOrderOptions, OCR_JOB, ocrJobHandler, ocrJobsFrom, withDateBounds } from './receipts/ocr-job';
import { AUTO_MATCH_JOB, AUTO_MATCH_JOB_OPTIONS, autoMatchJobHandler, autoMatchJobsFrom } from './receipts/matching-job';
import { RequestActivity } from './jobs/request-activity';
import { knownMatches, matchBlock } from './receipts/match-block';
import { Reactor } from './jobs/reactor';
import { createHash } from 'node:crypto';
import type { Config } from './config';
import { createAdapters, type Adapters } from './adapters';
import { LocalBlobStore, type SweepReport } from './blobs/local';
import { sweepOrphanFiles } from './blobs/sweep';
import { dataDir, lockDataDir, signingSecret } from './data-dir';
import { openCounterStore } from './limits';
import { upgradeRequestRecords } from './eventstore/upgrade-request-records';
import { CompanyPositions } from './eventstore/company-positions';
import { companyMemo } from './ai/company-memo';
import { carryLegacyMatches, legacyMatchingCompanies } from './eventstore/carry-legacy-matches';
import { accessReader } from './http/access';
import { webApp } from './http/static';
import { securityHeaders } from './http/security';
import { apiDocs } from './http/api-docs';
import { readYourWrites } from './http/read-side';
import { Argon2Hasher } from './passwords';
import { WorkerPool } from './workers/pool';
import { offThread } from './workers/off-thread';
import { renderReport } from './reports/run';
import { findInPages } from './readstore/paged';
import { hasKnownCounts, keepCountHints } from './readstore/count-hints';
import { ModelChain } from './llm/chain';
import { aiLearningDeps, CompanyCategorizers } from './ai/learning';
import { aiRouters } from './ai/routers';
import { auditRouter } from './audit/routes';
import { systemRouter } from './system/routes';
import { roleProblem, servedBy } from './roles/gate';
import { jobFailuresOf, type DeadLetterProjector } from './jobs/dead-letters';
import type { KafkaJobQueue } from './jobs/kafka';
import { ProjectorThread } from './projector/host';
import { projectorLease } from './projector/lease';
import { companyPeriod, companySettings, companySettingViews, listMasterItems, merchantDateOrdersOf, receiptMatchInput } from '@paperlink/projections';

export const VERSION = '1.0.0';
/** The transaction field that refers to a master data item of each kind. */
const USAGE_FIELD = { categories: 'category_name', job_numbers: 'job_number_name', cost_codes: 'cost_code_name' } as const;
const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '../..');

export interface Paperlink {
  app: express.Express;
  adapters: Adapters;
  runner: ProjectionRunner;
  /** Whether the projections run in the projector thread (PROJECTOR=thread, ADR 0008); else on this thread or in another process. */
  projectorThread: boolean;
  /** The start-up sweep of receipt files a crash left without a receipt (null: not run). */
  orphanSweep: Promise<SweepReport | null>;
  close(): Promise<void>;
}

export interface PaperlinkOptions {
  hasher?: PasswordHasher;
  /** Skip the data-folder lock (tests that open a folder twice on purpose). */
  noLock?: boolean;
  /** How receipt files are read (tests may pass a slow or failing reader). Default: OCR pool. */
  reader?: ReceiptReader;
  /** Don't start job workers (tools that only read). */
  noJobs?: boolean;
  /** The projections to run (default: allProjections(); a test may pass a new version of one). */
  projections?: Projection[];
  /** Wraps the event store (tests: an appendMany that is not atomic, as on EventStoreDB). */
  wrapEvents?: (events: EventStore) => EventStore;
}

/** The composition root: adapters, projections, command and query routers, the web app. */
export async function createPaperlink(config: Config, options: PaperlinkOptions = {}): Promise<Paperlink> {
  const dir = dataDir(config.DATA_DIR);
  // PAPERLINK_ROLE (ADR 0025): the process that writes the read models (all, projector) owns the
  // data folder; command and query processes share it (SQLite WAL) or only keep the signing key there.
  const role = config.PAPERLINK_ROLE;
  const refused = roleProblem(config);
  if (refused) throw new Error(refused);
  const writesReadModels = role === 'all' || role === 'projector';
  // With MONGO_URL the projector lease keeps one writer (ADR 0032), across machines, and a standby starts beside it.
  const unlock = options.noLock || !writesReadModels || config.MONGO_URL ? () => {} : lockDataDir(dir, role === 'all' ? 'server' : 'projector');
  try {
    // Request records of older versions held unkeyed digests of bodies (passwords): rewrite them first.
    if (!config.EVENTSTORE_URL && writesReadModels) upgradeRequestRecords(dir.eventsFile);
    // Companies whose matches still live in one old stream (before ADR 0021), carried below.
    const legacyMatching = config.EVENTSTORE_URL || !writesReadModels ? [] : legacyMatchingCompanies(dir.eventsFile);
    const adapters = await createAdapters(config, dir);
    const { blobs, jobs } = adapters;
    // The position of each company's newest event, which its decisions wait to see projected (ADR 0023):
    // known here only when this process appends every event (the embedded store, role all); else the head.
    const positions = await CompanyPositions.open(adapters.events, !config.EVENTSTORE_URL && role === 'all');
    const events = positions.wrap(options.wrapEvents ? options.wrapEvents(adapters.events) : adapters.events);
    const decisionPosition = (companyId: string) => positions.of(companyId);
    // Matches move into the streams of their sides, once (ADR 0021), in the background: a
    // company's match decisions wait for its mark (command-api/src/matches/book.ts), the rest answers at once.
    if (config.EVENTSTORE_URL) console.warn('matching: old matching-<company> streams on EventStoreDB are not carried into side streams (ADR 0021)');
    const carryStop = { stopped: false };
    const matchingCarry = carryLegacyMatches(events, legacyMatching, carryStop).catch((error: unknown) => {
      console.error('matching: carrying old matches into side streams failed (the next start goes on):', error);
    });
    const projections = options.projections ?? allProjections();
    // Queries and projectors see each projection's live generation (blue-green rebuilds).
    const readStore = await GenerationalReadStore.open(adapters.readStore, projections);
    // CPU-heavy steps (CSV parsing, PDF checks and rendering, thumbnails) run here, never on the request thread.
    const workerPool = new WorkerPool({ size: config.WORKER_THREADS });
    const cpu = offThread(workerPool);
    const runner = new ProjectionRunner(events, readStore, projections);
    // MongoDB: one active projector (a lease every write checks, ADR 0032); other processes watch it for their health.
    const lease = await projectorLease(adapters.readStore, { compete: writesReadModels, failure: () => runner.failed });
    lease?.onLost(() => {
      // Its writes are refused from now on: it stops, and says so (health 503) until it is restarted as a standby.
      runner.reportFromElsewhere({ failure: new Error('another projector took the lease over: restart this process to stand by') });
      void runner.stop();
      for (const r of reactors) void r.stop();
      void deadLetters?.stop();
    });
    // PROJECTOR=thread (ADR 0008): the projectors run in a thread of their own (SQLite read store,
    // role all; not with a test's own projections or event-store wrapper), followed by this one.
    const projector = role === 'all' && !options.projections && !options.wrapEvents ? await ProjectorThread.startIfChosen(config.PROJECTOR, adapters, runner) : undefined;
    if (projector) {
      // The runner follows the projector thread's commits (started above).
    } else if (writesReadModels && lease && !lease.holding) {
      // A standby: the projections start once it takes the lease over.
      lease.onActive(() => runner.start().catch((error: unknown) => runner.reportFromElsewhere({ failure: error })));
    } else if (writesReadModels) {
      await runner.start();
    } else {
      // Command and query processes read what the projector process commits (ADR 0025).
      if (adapters.readStore.kind === 'embedded') throw new Error(`PAPERLINK_ROLE=${role} shares the read models with a projector process: set MONGO_URL, or keep the read models in SQLite (not READ_STORE=memory)`);
      (adapters.readStore as { followOtherWriters?: () => void }).followOtherWriters?.();
      await runner.follow();
    }
    // Reactors and the orphan-file sweep run where the projections run; job handlers there too,
    // except when Kafka carries the jobs to worker processes (PAPERLINK_ROLE=worker), and in workers.
    const runsReactors = !options.noJobs && writesReadModels;
    const runsHandlers = !options.noJobs && (role === 'all' || role === 'worker' || (role === 'projector' && jobs.kind !== 'kafka'));
    // Receipt files a crash left without a receipt are removed, once the read models hold every receipt.
    let stopping = false;
    const caughtUp = async () => {
      const head = await events.headPosition();
      for (let i = 0; i < 120 && !stopping; i++) if (await runner.waitFor(head, 500)) return !stopping;
      return false;
    };
    const orphanSweep = blobs instanceof LocalBlobStore && runsReactors
      ? sweepOrphanFiles(blobs, readStore, caughtUp).catch((error: unknown) => {
        console.error('orphan file sweep failed:', error);
        return null;
      })
      : Promise.resolve(null);

    // Counts known before the last stop answer a big list's first total while it is recounted (ADR 0029, decision 24).
    const countHints = hasKnownCounts(adapters.readStore) ? keepCountHints(adapters.readStore, join(dir.root, 'count-hints.json'), { log: (m) => console.warn(m) }) : undefined;

    const tokens = new TokenService(signingSecret(dir, config.JWT_SECRET), config.ACCESS_TOKEN_TTL_SECONDS, config.REFRESH_TOKEN_TTL_SECONDS);
    // The wait honours READ_SIDE_WAIT_MS and says whether the read models caught up; a decision
    // that reads them is refused (503) when they did not (requireCaughtUp, ADR 0023).
    const bus = new CommandBus(events, (position, maxMs) => runner.waitFor(position, Math.min(maxMs ?? config.READ_SIDE_WAIT_MS, config.READ_SIDE_WAIT_MS)), fingerprintKey(signingSecret(dir, config.JWT_SECRET)));
    const hasher = options.hasher ?? new Argon2Hasher();
    const access = accessReader(readStore, async () => runner.waitFor(await events.headPosition(), config.READ_SIDE_WAIT_MS));
    const views = accountViews(readStore);
    // The language model: the company's primary and fallback hosted models (when a key is set),
    // then the company's own offline categoriser (trained in the worker pool), then "no model".
    const categorizers = new CompanyCategorizers(readStore, workerPool);
    const llm = new ModelChain({ apiKey: config.ANTHROPIC_API_KEY, baseURL: config.ANTHROPIC_BASE_URL, timeoutMs: config.LLM_TIMEOUT_MS, maxRetries: config.LLM_MAX_RETRIES, offline: categorizers.offline() });
    const settingsOf = (companyId: string) => companySettings(readStore, companyId);
    // Sign-in limits in a store every process of the deployment shares (MongoDB, the folder's limits.sqlite, or memory for one process).
    const limits = { store: await openCounterStore(config, dir), perAddress: { limit: config.LOGIN_MAX_FAILURES_PER_ADDRESS, windowMs: config.LOGIN_ADDRESS_WINDOW_SECONDS * 1000 } };

    const app = express();
    app.disable('x-powered-by');
    app.use(securityHeaders());
    if (config.TRUST_PROXY) app.set('trust proxy', config.TRUST_PROXY);
    const api = express.Router();
    // Requests in flight: background jobs on this thread give way to them (jobs/request-activity.ts).
    const activity = new RequestActivity();
    api.use(activity.middleware());
    api.use(express.json({ limit: '1mb' }));
    api.use(jsonDepthLimit());
    api.use(requestContext);
    if (config.LOG_REQUESTS === '1') {
      api.use((req, res, next) => {
        const t = performance.now();
        res.on('finish', () => console.log(`${req.method} ${loggableUrl(req.originalUrl)} ${res.statusCode} ${(performance.now() - t).toFixed(1)}ms`));
        next();
      });
    }
    // Public: status and version only. The details (profile, stores, projection lag) are for admins, below.
    api.get('/health', (_req, res) => {
      // 503 while the projections have stopped, or no projector holds the lease (here or elsewhere).
      const ok = runner.failed === undefined && (lease?.healthy() ?? true);
      res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', version: VERSION });
    });
    const accountDeps = { bus, events, tokens, hasher, views, limits, loginAddressKey: signingSecret(dir, config.JWT_SECRET) };
    const secret = signingSecret(dir, config.JWT_SECRET);
    const receiptDeps = {
      bus,
      blobs,
      uploadSecret: createHash('sha256').update(`receipt-upload:${secret}`).digest(),
      checkPdf: (bytes: Buffer) => cpu.checkPdf(bytes),
      // Decisions on read models (ADR 0023): read once they hold every earlier event, else 503.
      uploadLimit: freshRead(bus, async (companyId: string) => (await settingsOf(companyId)).maxFileSize, decisionPosition),
      sameBytes: freshRead(bus, async (companyId: string, sha256: string, scope: { userId?: string }) => (await receiptsWithBytes(readStore, companyId, sha256, scope))[0]?._id ?? null, decisionPosition),
      view: async (companyId: string, id: string, scope: { userId?: string } = {}) => {
        const doc = await getReceipt(readStore, companyId, id);
        return doc ? ((await toReceiptViews(readStore, [doc], scope))[0] as unknown as Record<string, unknown>) : null;
      },
    };
    const asMatchReceipt = (d: ReceiptDoc) => ({ ...receiptMatchInput(d), owner: d.userId, name: d.original_filename });
    const asMatchTransaction = (d: TransactionDoc) => ({ id: d._id, amountCents: d.amountCents, date: d.transaction_date, description: d.description, cardHolder: d.userId, owner: d.userId });
    const matchDeps: MatchDeps = {
      bus,
      inputs: async (companyId, scope) => {
        const own = { companyId, ...(scope.userId ? { userId: scope.userId } : {}) };
        const [receipts, transactions] = await Promise.all([
          readStore.collection<ReceiptDoc>(RECEIPTS).find({ ...own, processing_status: 'completed' }),
          findInPages(readStore.collection<TransactionDoc>(TRANSACTIONS), own, asMatchTransaction),
        ]);
        return { receipts: receipts.map(asMatchReceipt), transactions };
      },
      autoMatch: cpu.autoMatch,
      threshold: async (companyId) => (await settingsOf(companyId)).autoMatchThreshold,
      receipt: async (companyId, id) => {
        const d = await getReceipt(readStore, companyId, id);
        return d ? asMatchReceipt(d) : null;
      },
      transaction: async (companyId, id) => {
        const d = await getTransaction(readStore, companyId, id);
        return d ? asMatchTransaction(d) : null;
      },
      matchSides: async (companyId, id) => {
        const m = await getMatch(readStore, companyId, id);
        return m ? { receiptId: m.receiptId, transactionId: m.transactionId } : null;
      },
      // Auto-match after new evidence: its candidate block only, by indexed queries (ADR 0021).
      block: matchBlock(readStore, asMatchReceipt, asMatchTransaction),
      matchesOf: knownMatches(readStore),
    };
    const reactors: Reactor[] = [];
    let reader: ReceiptReader | undefined = options.reader;
    /** Reads one file as receipts are read (the OCR pool), for /ai/llm/test-ocr. */
    let readFile: ReceiptReader['read'] = async (bytes) => {
      if (!reader) throw new Error('OCR does not run in this process');
      return reader.read(bytes);
    };
    let deadLetters: DeadLetterProjector | undefined;
    if (runsHandlers || runsReactors || (role === 'command' && !options.noJobs)) {
      // The OCR modules are loaded now, not on the first receipt: loading modules through the
      // TypeScript loader holds the request thread (over a second for tesseract.js here).
      const readerModule = options.reader || !runsHandlers ? undefined : await import('./receipts/reader');
      const lazyReader: ReceiptReader = {
        read: async (bytes, extract) => {
          let r = reader;
          if (!r) {
            const { createOcrReader } = readerModule ?? (await import('./receipts/reader'));
            r = reader = createOcrReader({ workers: config.OCR_WORKERS, pdf: cpu.pdf, fields: cpu.receiptFields, rereadLines: cpu.receiptRereadLines, ...(config.OCR_SECOND_LINE_READER === 'paddle' ? { secondLines: cpu.secondLines } : {}), log: (m) => console.warn(m) });
          }
          return r.read(bytes, extract);
        },
      };
      readFile = (bytes) => lazyReader.read(bytes);
      // The command process reads files for /ai/llm/test-ocr; job handlers run in workers or with the projections.
      if (runsHandlers) {
        jobs.register(OCR_JOB, ocrJobHandler({ bus, blobs, reader: lazyReader, extractOptions: async (companyId) => withDateBounds(dateOrderOptions((await settingsOf(companyId)).dateOrder, await merchantDateOrdersOf(readStore, companyId)), await companyPeriod(readStore, companyId)), printCopy: async (sha256, bytes) => blobs.putDerived(sha256, PRINT_COPY, await cpu.printCopy(bytes)), log: (m) => console.warn(m) }), { concurrency: config.OCR_WORKERS, maxAttempts: 3, backoffMs: { base: 1000, max: 30_000 } });
        jobs.register(AUTO_MATCH_JOB, autoMatchJobHandler({ match: matchDeps, events, caughtUp: (p) => runner.waitFor(p), log: (m) => console.warn(m), pause: activity.yieldToRequests }), AUTO_MATCH_JOB_OPTIONS);
      }
      if (runsReactors) {
        // With the projector thread the reactors run there (they read every event); their jobs run here.
        if (projector) projector.startReactors(jobs);
        else reactors.push(new Reactor('receipts-ocr', events, readStore, jobs, ocrJobsFrom), new Reactor('auto-match', events, readStore, jobs, autoMatchJobsFrom));
        // Only the projector holding the lease runs the reactors and writes the failed-jobs read model.
        const startReactors = async () => {
          for (const r of reactors) await r.start();
          // Jobs given up on Kafka, for admins (System page): read from the dead-letter topic into the read store.
          if (jobs.kind === 'kafka') {
            deadLetters = (jobs as KafkaJobQueue).deadLetterProjector(readStore);
            deadLetters.start().catch((error: unknown) => console.error('failed-jobs read model did not start:', error instanceof Error ? error.message : error));
          }
        };
        if (lease && !lease.holding) lease.onActive(startReactors);
        else await startReactors();
      }
    }
    // A query process answers reads only, a projector or worker process /api/health only (421 otherwise).
    api.use(servedBy(role, queryOperations));
    api.use(apiDocs(VERSION)); // GET /api/openapi.json, /api/docs: public
    api.use(receiptUploadTargetRouter(receiptDeps));
    api.use(publicAccountRouter(accountDeps));
    api.use(authenticate(tokens, access));
    // Auditors: reads only; every write is refused here, before any router.
    api.use(refuseReadOnlyWrites(queryOperations, commandOperations));
    // Read-your-writes across processes: a client may ask queries to wait for a position it has
    // seen. Only after authentication: an anonymous request never holds the server for 5 s.
    api.use(readYourWrites((position, ms) => runner.waitFor(position, ms)));
    api.get('/health/details', requireCompany('admin'), async (_req, res) => {
      const head = await events.headPosition();
      const failed = runner.failed !== undefined;
      res.json({
        status: failed ? 'degraded' : 'ok',
        version: VERSION,
        profile: adapters.profile,
        eventStore: events.kind,
        readStore: readStore.kind,
        projections: { position: runner.position, head, lag: Math.max(0, head - runner.position), ...(failed ? { error: String(runner.failed) } : {}) },
      });
    });
    api.use(accountRouter(accountDeps));
    api.use(companyRouter({ bus, events, views, access }));
    api.use(accountQueryRouter(views, access));
    api.use(masterDataQueryRouter(readStore));
    // History and as-of reads (ADR 0017): with `asOf`, the transactions, receipts and
    // matches reads answer from the company's state replayed to that moment (query-api/src/history).
    api.use(asOfReads(new AsOfReplayer(events, { newStore: () => new EmbeddedReadStore() })));
    api.use(historyRouter({ events, store: readStore }));
    api.use(transactionQueryRouter(readStore));
    api.use(importRouter({
      bus,
      members: async (companyId) => {
        const memberships = await membersOfCompany(readStore, companyId);
        const users = await getUsers(readStore, memberships.map((m) => m.userId));
        return memberships.flatMap((m) => {
          const u = users.get(m.userId);
          return u ? [{ userId: m.userId, firstName: u.firstName, lastName: u.lastName, role: m.role }] : [];
        });
      },
      existingKeys: async (companyId, keys) => {
        const held = new Map<string, number>();
        // 2,000 keys per turn of the event loop: a 200,000-row import asks for 200,000 keys, and
        // 10,000 per turn (after one Set of all of them) held the request thread 30-50 ms under load.
        // A key asked twice is looked up twice, with the same answer.
        const PART = 2000;
        for (let i = 0; i < keys.length; i += PART) {
          const part = keys.slice(i, i + PART);
          const found = (await readStore.getMany(TRANSACTION_KEYS, part.map((k) => transactionKeyId(companyId, k)))) as Map<string, TransactionKeyDoc>;
          for (const k of part) {
            const count = found.get(transactionKeyId(companyId, k))?.count ?? 0;
            if (count > 0) held.set(k, count);
          }
          if (i + PART < keys.length) await new Promise<void>((resolve) => setImmediate(resolve));
        }
        return held;
      },
      parsers: cpu.parsers,
      maxRows: config.MAX_IMPORT_ROWS,
      answerWaitRows: config.IMPORT_ANSWER_WAIT_ROWS,
      decisionPosition,
      // Large files off the request thread, beside the event store's writer (ADR 0008); not when a test wraps the store.
      ...(adapters.stager && !options.wrapEvents ? { stager: adapters.stager, stageBytes: config.IMPORT_STAGE_BYTES } : {}),
    }));
    api.use(transactionRouter({
      bus,
      events,
      // Where a transaction's row is never changes: a found one is right; a miss is asked again
      // once the read models hold every earlier event (a transaction imported a moment ago), else 503.
      locator: { locate: async (companyId, id) => (await getTransaction(readStore, companyId, id)) ?? (await freshRead(bus, (c: string, i: string) => getTransaction(readStore, c, i), decisionPosition)(companyId, id)) },
      view: async (companyId, id, scope) => {
        const doc = await getTransaction(readStore, companyId, id);
        return doc ? ((await toTransactionViews(readStore, [doc], undefined, scope))[0] as unknown as Record<string, unknown>) : null;
      },
    }));
    api.use(receiptQueryRouter({ store: readStore, blobs, thumbnail: (bytes, kind) => cpu.thumbnail(bytes, kind) }));
    api.use(receiptRouter(receiptDeps));
    api.use(matchQueryRouter(readStore));
    api.use(analyticsQueryRouter(readStore, { xlsx: (rows) => cpu.analyticsXlsx(rows) }));
    // SQLite read store (ADR 0018): the report's worker reads its rows on a connection of its own,
    // once what this connection's group holds is committed; the in-memory store's rows come from here.
    const reportFile = adapters.readStore.kind === 'sqlite' ? (adapters.readStore as { file?: string }).file : undefined;
    api.use(exportRouter({
      store: readStore,
      blobs,
      render: async ({ meta, admin, rows }, source, out) => {
        if (!reportFile || reportFile === ':memory:') return renderReport(workerPool, { meta, admin }, source, out);
        if (!projector && writesReadModels) await adapters.readStore.flush();
        return renderReport(workerPool, { meta, admin, ownRows: { file: reportFile, ...rows } }, source, out, blobs);
      },
    }));
    api.use(matchRouter(matchDeps));
    api.use(auditRouter({ pool: workerPool, eventsFile: config.EVENTSTORE_URL ? undefined : dir.eventsFile, secret }));
    api.use(systemRouter({ runner, events, jobFailures: (companyId) => jobFailuresOf(readStore, companyId), jobQueue: jobs.kind }));
    api.use(settingsRouter({ bus, llm, settings: settingsOf, views: (companyId) => companySettingViews(readStore, companyId) }));
    api.use(llmTestRouter({
      llm,
      settings: settingsOf,
      categories: async (companyId) => (await listMasterItems(readStore, companyId, 'categories')).map((c) => ({ id: c.id, name: c.name })),
      ocr: (bytes) => readFile(bytes),
    }));
    // Whole-company AI answers (recurring series) kept until the company's next event.
    const memo = companyMemo(decisionPosition, () => runner.position);
    const aiLearning = { ...aiLearningDeps(readStore, workerPool, bus, categorizers), llm, memo };
    api.use(aiLearningRouter(aiLearning));
    api.use(masterDataRouter({
      bus,
      // Whether an item is in use decides its deletion: read once the read models are current (ADR 0023).
      usage: async (companyId, kind, id) => {
        await readSideCurrent(bus, companyId, decisionPosition);
        const item = await getMasterItem(readStore, companyId, kind, id);
        return item ? readStore.collection('transactions').count({ companyId, [USAGE_FIELD[kind]]: item.name }) : 0;
      },
      item: (companyId, kind, id) => getMasterItem(readStore, companyId, kind, id),
      parsers: cpu.parsers,
    }));
    api.use(...aiRouters({ bus, events, readStore, cpu, settingsOf, learning: aiLearning }));
    api.use(notFound);
    api.use(errorHandler());
    app.use('/api', api);
    app.use(webApp(config.WEB_DIST ?? join(REPO_ROOT, 'web', 'dist')));

    const snapshotTimer = setInterval(() => {
      readStore.flush().catch((error: unknown) => console.error('snapshot failed:', error));
    }, config.SNAPSHOT_INTERVAL_SECONDS * 1000);
    snapshotTimer.unref();

    let closed = false;
    return {
      app,
      adapters,
      runner,
      projectorThread: projector !== undefined,
      orphanSweep,
      async close() {
        if (closed) return;
        closed = true;
        stopping = true;
        carryStop.stopped = true;
        await matchingCarry;
        await orphanSweep;
        clearInterval(snapshotTimer);
        for (const r of reactors) await r.stop();
        await projector?.stopReactors();
        await deadLetters?.stop();
        await jobs.close();
        await workerPool.close();
        if (reader && 'close' in reader) await (reader as { close(): Promise<void> }).close();
        await blobs.close();
        await runner.stop();
        await lease?.close();
        await projector?.stop();
        countHints?.stop();
        await readStore.close();
        await events.close();
        await limits.store.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
