/**
 * GET /audit/verify and GET /audit/export (ADR 0010): admins and auditors. The chain walk
 * and the bundle run in the worker pool, on a read-only connection of their own, never on the
 * request thread; the bundle is written to a private temporary file, sent, then removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from 'express';
import { ConflictError, ValidationError } from '@paperlink/domain';
import { ctxOf, requireCompany } from '@paperlink/command-api';
import { AuditExportQuery } from '@paperlink/query-api';
import type { WorkerPool } from '../workers/pool';
import { auditSigningKey } from './bundle';

export interface AuditDeps {
  pool: WorkerPool;
  /** The SQLite event store file; undefined when the events live in EventStoreDB (no chain). */
  eventsFile: string | undefined;
  secret: string;
}

/** A walk of a million events takes a few seconds; a very large log gets room. */
const AUDIT_TIMEOUT_MS = 10 * 60_000;

export function auditRouter(deps: AuditDeps): Router {
  const router = Router();
  const admin = requireCompany('admin');
  const publicKey = auditSigningKey(deps.secret).publicKey;
  const file = (): string => {
    if (!deps.eventsFile) throw new ConflictError('This server keeps its events in EventStoreDB, which holds no hash chain (docs/decisions/0010-event-hash-chain.md)', 'chain_unavailable');
    return deps.eventsFile;
  };

  router.get('/audit/verify', admin, async (_req, res) => {
    const report = await deps.pool.run('auditVerify', { file: file() }, { timeoutMs: AUDIT_TIMEOUT_MS });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...report, publicKey });
  });

  router.get('/audit/export', admin, async (req, res) => {
    const q = AuditExportQuery.parse(req.query);
    if (q.startDate && q.endDate && q.startDate > q.endDate) throw new ValidationError('The start date is after the end date', [{ field: 'startDate', message: 'The start date is after the end date' }]);
    const ctx = ctxOf(res);
    const dir = await mkdtemp(join(tmpdir(), 'paperlink-audit-'));
    const out = join(dir, 'bundle.jsonl');
    try {
      const manifest = await deps.pool.run('auditExport', { file: file(), out, companyId: ctx.companyId!, startDate: q.startDate ?? null, endDate: q.endDate ?? null, secret: deps.secret }, { timeoutMs: AUDIT_TIMEOUT_MS });
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="audit_${q.startDate ?? 'start'}_to_${q.endDate ?? 'end'}.jsonl"`);
      res.setHeader('X-Audit-Events', String(manifest.count));
      await new Promise<void>((resolve, reject) => {
        const stream = createReadStream(out);
        stream.on('error', reject);
        res.on('close', resolve);
        stream.pipe(res);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  return router;
}
