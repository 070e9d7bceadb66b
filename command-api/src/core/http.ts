import type { Request, Response } from 'express';
import type { RequestContext } from '@paperlink/domain';
import { clientRequestId, ctxOf } from '../http/context';
import { fingerprint, type CommandBus, type Plan } from './bus';
import type { TokenService } from './tokens';

/**
 * Runs a command for an HTTP request through the bus (idempotent on X-Request-Id) and sends
 * the answer, minting tokens from the reply's grant so that a retry gets the same ones.
 */
export async function send(
  req: Request,
  res: Response,
  bus: CommandBus,
  plan: (ctx: RequestContext) => Promise<Plan>,
  tokens?: TokenService,
): Promise<{ status: number; position: number }> {
  const ctx = ctxOf(res);
  const key = clientRequestId(req);
  const idempotency = key
    ? { key, fingerprint: fingerprint([req.method, req.baseUrl + req.path, ctx.userId ?? null, ctx.companyId ?? null, req.body ?? null]) }
    : undefined;
  const reply = await bus.run(ctx, () => plan(ctx), idempotency);
  let body = reply.body;
  if (reply.grant && tokens) body = { ...(body as object), ...(await tokens.mint(reply.grant)) };
  if (reply.position > 0) res.setHeader('X-Position', String(reply.position));
  res.status(reply.status).json(body);
  return { status: reply.status, position: reply.position };
}
