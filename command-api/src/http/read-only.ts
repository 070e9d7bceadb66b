/**
 * The auditor's guard: a read-only caller may read (GET, and the few POST
 * routes of the query side that only read: report previews and files, analyses) and manage their
 * own account (sign out, name, password: operations that need no company), and nothing else. The
 * check comes before every router, and refuses what it does not know: a route added later is a
 * write for an auditor until the query side lists it.
 *
 * A few POST routes of the command side only compute an answer from the read models and append
 * nothing (marked `computesOnly` in their module); they are reads too. A route belongs here only if its handler
 * never calls the command bus: `test/api/auditor.int.spec.ts` calls each as an auditor and sees
 * the event log unchanged.
 */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '@paperlink/domain';
import type { Operation } from './openapi';
import { ctxOf, READ_METHODS, READ_ONLY_MESSAGE } from './context';

function matcher(ops: ReadonlyArray<Pick<Operation, 'method' | 'path'>>): (method: string, path: string) => boolean {
  const patterns = ops.map((op) => ({
    method: op.method.toUpperCase(),
    path: new RegExp(`^${op.path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`),
  }));
  return (method, path) => patterns.some((p) => p.method === method && p.path.test(path));
}

/**
 * `reads`: the query side's operations; `commands`: the command side's. Mounted after
 * `authenticate`, where the request's path is relative to the API's base.
 */
export function refuseReadOnlyWrites(reads: Operation[], commands: Operation[]): RequestHandler {
  const isRead = matcher([...reads.filter((op) => op.method !== 'get'), ...commands.filter((op) => op.computesOnly)]);
  const isOwnAccount = matcher(commands.filter((op) => op.auth === 'none' || op.auth === 'user'));
  return (req, res, next) => {
    if (!ctxOf(res).readOnly || READ_METHODS.has(req.method)) return next();
    if (isRead(req.method, req.path) || isOwnAccount(req.method, req.path)) return next();
    throw new ForbiddenError(READ_ONLY_MESSAGE, 'read_only_role');
  };
}
