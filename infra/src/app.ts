import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import express from 'express';
import {
  accountRouter,
  authenticate,
  CommandBus,
  companyRouter,
  errorHandler,
  masterDataRouter,
  notFound,
  publicAccountRouter,
  importRouter,
  requestContext,
  transactionRouter,
  SlidingWindowLimiter,
  TokenService,
  type PasswordHasher,
} from '@paperlink/command-api';
import { allProjections, ProjectionRunner } from '@paperlink/projections';
import { accountQueryRouter, accountViews, masterDataQueryRouter, transactionQueryRouter } from '@paperlink/query-api';
import { getMasterItem, getTransaction, getUsers, membersOfCompany, toTransactionViews, TRANSACTION_KEYS, transactionKeyId } from '@paperlink/projections';
import type { Config } from './config';
import { createAdapters, type Adapters } from './adapters';
import { dataDir, lockDataDir, signingSecret } from './data-dir';
import { accessReader } from './http/access';
import { webApp } from './http/static';
import { Argon2Hasher } from './passwords';

export const VERSION = '1.0.0';
/** The transaction field that refers to a master data item of each kind. */
const USAGE_FIELD = { categories: 'category_name', job_numbers: 'job_number_name', cost_codes: 'cost_code_name' } as const;
const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '../..');

export interface Paperlink {
  app: express.Express;
  adapters: Adapters;
  runner: ProjectionRunner;
  close(): Promise<void>;
}

export interface PaperlinkOptions {
  hasher?: PasswordHasher;
  /** Skip the data-folder lock (tests that open a folder twice on purpose). */
  noLock?: boolean;
}

/** The composition root: adapters, projections, command and query routers, the web app. */
export async function createPaperlink(config: Config, options: PaperlinkOptions = {}): Promise<Paperlink> {
  const dir = dataDir(config.DATA_DIR);
  const unlock = options.noLock ? () => {} : lockDataDir(dir, 'server');
  try {
    const adapters = await createAdapters(config, dir);
    const { events, readStore } = adapters;
    const runner = new ProjectionRunner(events, readStore, allProjections());
    await runner.start();

    const tokens = new TokenService(signingSecret(dir, config.JWT_SECRET), config.ACCESS_TOKEN_TTL_SECONDS, config.REFRESH_TOKEN_TTL_SECONDS);
    const bus = new CommandBus(events, (position) => runner.waitFor(position));
    const hasher = options.hasher ?? new Argon2Hasher();
    const access = accessReader(readStore);
    const views = accountViews(readStore);
    const loginFailuresPerAddress = new SlidingWindowLimiter(config.LOGIN_MAX_FAILURES_PER_ADDRESS, config.LOGIN_ADDRESS_WINDOW_SECONDS * 1000);

    const app = express();
    app.disable('x-powered-by');
    if (config.TRUST_PROXY) app.set('trust proxy', config.TRUST_PROXY);
    const api = express.Router();
    api.use(express.json({ limit: '1mb' }));
    api.use(requestContext);
    if (config.LOG_REQUESTS === '1') {
      api.use((req, res, next) => {
        const t = performance.now();
        res.on('finish', () => console.log(`${req.method} ${req.originalUrl} ${res.statusCode} ${(performance.now() - t).toFixed(1)}ms`));
        next();
      });
    }
    api.get('/health', async (_req, res) => {
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
    // Read-your-writes across processes: a client may ask queries to wait for a position it has seen.
    api.use(async (req, _res, next) => {
      const min = Number(req.header('x-min-position'));
      if (req.method === 'GET' && Number.isFinite(min) && min > 0) await runner.waitFor(min, 5000);
      next();
    });
    const accountDeps = { bus, events, tokens, hasher, views, loginFailuresPerAddress };
    api.use(publicAccountRouter(accountDeps));
    api.use(authenticate(tokens, access));
    api.use(accountRouter(accountDeps));
    api.use(companyRouter({ bus, events, views, access }));
    api.use(accountQueryRouter(views, access));
    api.use(masterDataQueryRouter(readStore));
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
        const found = await readStore.getMany(TRANSACTION_KEYS, keys.map((k) => transactionKeyId(companyId, k)));
        return new Set(keys.filter((k) => found.has(transactionKeyId(companyId, k))));
      },
    }));
    api.use(transactionRouter({
      bus,
      events,
      locator: { locate: (companyId, id) => getTransaction(readStore, companyId, id) },
      view: async (companyId, id) => {
        const doc = await getTransaction(readStore, companyId, id);
        return doc ? ((await toTransactionViews(readStore, [doc]))[0] as unknown as Record<string, unknown>) : null;
      },
    }));
    api.use(masterDataRouter({
      bus,
      usage: async (companyId, kind, id) => {
        const item = await getMasterItem(readStore, companyId, kind, id);
        return item ? readStore.collection('transactions').count({ companyId, [USAGE_FIELD[kind]]: item.name }) : 0;
      },
      item: (companyId, kind, id) => getMasterItem(readStore, companyId, kind, id),
    }));
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
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(snapshotTimer);
        await runner.stop();
        await readStore.close();
        await events.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
