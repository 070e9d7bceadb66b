import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import express from 'express';
import {
  authenticate, commandOperations, errorHandler, jsonDepthLimit, loggableUrl, notFound, refuseReadOnlyWrites, requestContext,
} from '@paperlink/command-api';
import type { ProjectionRunner } from '@paperlink/projections';
import { queryOperations } from '@paperlink/query-api';
import type { Config } from './config';
import type { Adapters } from './adapters';
import type { SweepReport } from './blobs/local';
import { webApp } from './http/static';
import { securityHeaders } from './http/security';
import { apiDocs } from './http/api-docs';
import { readYourWrites } from './http/read-side';
import { roleProblem, servedBy } from './roles/gate';
import type { Kernel, Wiring } from './boot/feature';
import { startJobs } from './boot/jobs';
import type { PaperlinkOptions } from './boot/options';
import { openServices } from './boot/services';
import { openStores } from './boot/stores';
import { features } from './features';
import { ownWork } from './workers/owner';
import { VERSION } from './version';

export { VERSION };
export type { PaperlinkOptions };
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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

/** The composition root: the stores and services, then every feature's routes and jobs, behind the middleware. */
export async function createPaperlink(config: Config, options: PaperlinkOptions = {}): Promise<Paperlink> {
  const refused = roleProblem(config);
  if (refused) throw new Error(refused);
  const stores = await openStores(config, options);
  let services: Awaited<ReturnType<typeof openServices>> | undefined;
  try {
    services = await openServices(config, options, stores);
    const kernel: Kernel = { ...stores, ...services, config, options };
    const wirings = features.map((f) => f.wire(kernel));
    const jobs = await startJobs(kernel, features, wirings);
    const app = httpApp(kernel, wirings);
    const snapshotTimer = setInterval(() => {
      kernel.readStore.flush().catch((error: unknown) => console.error('snapshot failed:', error));
    }, config.SNAPSHOT_INTERVAL_SECONDS * 1000);
    snapshotTimer.unref();
    let closed = false;
    const opened = services;
    return {
      app,
      adapters: stores.adapters,
      runner: stores.runner,
      projectorThread: stores.projector !== undefined,
      orphanSweep: stores.orphanSweep,
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(snapshotTimer);
        await jobs.stop();
        await stores.adapters.jobs.close();
        await opened.close();
        await stores.close();
      },
    };
  } catch (error) {
    await services?.close().catch(() => {});
    await stores.close().catch(() => {});
    throw error;
  }
}

/** The middleware around the features' routers, and the web app. */
function httpApp(k: Kernel, wirings: readonly Wiring[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders());
  if (k.config.TRUST_PROXY) app.set('trust proxy', k.config.TRUST_PROXY);
  const api = express.Router();
  api.use(k.activity.middleware());
  api.use(express.json({ limit: '1mb' }));
  api.use(jsonDepthLimit());
  api.use(requestContext);
  if (k.config.LOG_REQUESTS === '1') {
    api.use((req, res, next) => {
      const t = performance.now();
      res.on('finish', () => console.log(`${req.method} ${loggableUrl(req.originalUrl)} ${res.statusCode} ${(performance.now() - t).toFixed(1)}ms`));
      next();
    });
  }
  // Public: status and version only; 503 while the projections have stopped, or no projector holds the lease.
  api.get('/health', (_req, res) => {
    const ok = k.runner.failed === undefined && (k.lease?.healthy() ?? true);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', version: VERSION });
  });
  // A query process answers reads only, a projector or worker process /api/health only (421 otherwise).
  api.use(servedBy(k.config.PAPERLINK_ROLE, queryOperations));
  api.use(apiDocs(VERSION));
  for (const w of wirings) if (w.public) api.use(...w.public);
  api.use(authenticate(k.tokens, k.access));
  // Pool tasks from here on are queued as the caller's company's (workers/pool.ts shares the workers by company).
  api.use(ownWork());
  // Auditors: reads only; every write is refused here, before any router.
  api.use(refuseReadOnlyWrites(queryOperations, commandOperations));
  // Read-your-writes across processes, only after authentication: an anonymous request never holds the server.
  api.use(readYourWrites((position, ms) => k.runner.waitFor(position, ms)));
  for (const w of wirings) api.use(...w.routes);
  api.use(notFound);
  api.use(errorHandler());
  app.use('/api', api);
  app.use(webApp(k.config.WEB_DIST ?? join(REPO_ROOT, 'web', 'dist')));
  return app;
}
