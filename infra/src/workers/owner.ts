/**
 * Whose work a pool task is: the company a request or a job acts for. The pool queues tasks per
 * owner and serves the owners in turn (pool.ts), so one company's burst waits behind its own work.
 * The owner travels with the async context (a request's handlers, a job's run), so the ports the
 * routers are given (off-thread.ts) need no extra argument.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import type { JobHandler } from '@paperlink/domain';
import { ctxOf } from '@paperlink/domain/http/context';

/** Work no request or job owns (start-up, sweeps). */
export const SYSTEM_OWNER = 'system';

const owners = new AsyncLocalStorage<string>();

/** The owner of work started now. */
export const currentOwner = (): string => owners.getStore() ?? SYSTEM_OWNER;

/** Runs `work` (and everything it starts) as `owner`'s. */
export function asOwner<T>(owner: string, work: () => T): T {
  return owners.run(owner, work);
}

/** The owner of a request: its company, else its account (registration, the company list). */
export function requestOwner(ctx: { companyId?: string; userId?: string }): string {
  if (ctx.companyId) return `company:${ctx.companyId}`;
  return ctx.userId ? `user:${ctx.userId}` : SYSTEM_OWNER;
}

/** Middleware after authentication: the rest of the request runs as its company's. */
export function ownWork(): RequestHandler {
  return (_req, res, next) => asOwner(requestOwner(ctxOf(res)), next);
}

/** A job handler whose run and failure record run as the job's company's. */
export function ownedJob<P>(handler: JobHandler<P>): JobHandler<P> {
  return {
    run: (job) => asOwner(requestOwner({ companyId: job.companyId }), () => handler.run(job)),
    onFailed: (job, error) => asOwner(requestOwner({ companyId: job.companyId }), () => handler.onFailed(job, error)),
  };
}
