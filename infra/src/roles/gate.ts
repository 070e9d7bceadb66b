/**
 * Which requests a process of each role answers (PAPERLINK_ROLE, ADR 0025).
 * `all` and `command` answer every route (a command process reads the shared read models too:
 * its commands decide on them); `query` answers reads only (GET, HEAD, the query side's POST
 * reads, the command side's computing POSTs) and never appends; `projector` and `worker` answer
 * only /api/health (mounted before this gate). A request sent to the wrong process gets 421
 * Misdirected Request, so a proxy's routing mistake is plain and nothing is half done.
 */
import type { RequestHandler } from 'express';
import { COMMAND_SIDE_READS, READ_METHODS, type Operation } from '@paperlink/command-api';

export type ProcessRole = 'all' | 'command' | 'query' | 'projector' | 'worker';

/**
 * Why a process cannot start in its role, or null. A worker takes its jobs from Kafka: with the
 * in-process queue nothing would ever reach it (the jobs run where the reactors submit them).
 */
export function roleProblem(config: { PAPERLINK_ROLE: ProcessRole; KAFKA_BROKERS?: string | undefined }): string | null {
  if (config.PAPERLINK_ROLE === 'worker' && !config.KAFKA_BROKERS?.trim()) {
    return 'PAPERLINK_ROLE=worker runs the jobs it takes from Kafka: set KAFKA_BROKERS. Without Kafka, jobs run in the process that runs the projections (PAPERLINK_ROLE=all or projector).';
  }
  return null;
}

const WRONG_PROCESS: Record<Exclude<ProcessRole, 'all' | 'command'>, string> = {
  query: 'This process answers reads only (PAPERLINK_ROLE=query): send changes to the command API.',
  projector: 'This process runs the projections and reactors only (PAPERLINK_ROLE=projector): send requests to the command or query API.',
  worker: 'This process runs jobs only (PAPERLINK_ROLE=worker): send requests to the command or query API.',
};

function matcher(ops: ReadonlyArray<Pick<Operation, 'method' | 'path'>>): (method: string, path: string) => boolean {
  const patterns = ops.map((op) => ({
    method: op.method.toUpperCase(),
    path: new RegExp(`^${op.path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`),
  }));
  return (method, path) => patterns.some((p) => p.method === method && p.path.test(path));
}

/** Whether a request (path relative to /api) is a read a query process may answer. */
export function isReadRequest(queryOperations: Operation[]): (method: string, path: string) => boolean {
  const postReads = matcher([...queryOperations.filter((op) => op.method !== 'get'), ...COMMAND_SIDE_READS]);
  return (method, path) => READ_METHODS.has(method) || postReads(method, path);
}

export function servedBy(role: ProcessRole, queryOperations: Operation[]): RequestHandler {
  const isRead = isReadRequest(queryOperations);
  return (req, res, next) => {
    if (role === 'all' || role === 'command') return next();
    if (role === 'query' && isRead(req.method, req.path)) return next();
    res.status(421).json({ error: WRONG_PROCESS[role], code: 'wrong_process' });
  };
}
