import { readFile } from 'node:fs/promises';
import type { Request, Response } from 'express';
import type { RequestContext } from '@paperlink/domain';
import { clientRequestId, ctxOf } from '../http/context';
import type { CommandBus, Plan, Reply } from './bus';
import { fileDigest } from './fingerprint';
import type { TokenService } from './tokens';

export interface SendOptions {
  /**
   * More of what makes this request this request, when the body does not show it: the session
   * and generation a refresh token stands for, the hash of a file committed by key. Never a
   * secret itself.
   */
  bind?: unknown[];
  /** See Idempotency.mayReplayGrant. */
  mayReplayGrant?: (previous: Reply) => Promise<boolean>;
  /**
   * The answer's record as the read model shows it once the bus has waited for the events (a 2xx
   * only), merged over the plan's body: a router never rebuilds a read model's view by hand. A
   * retry gets the record as it then reads.
   */
  answer?: (ctx: RequestContext) => Promise<Record<string, unknown>>;
}

/** The files of a request (multer's req.file / req.files, or a raw body), by their bytes' SHA-256. */
async function filesOf(req: Request): Promise<unknown[]> {
  const files: Array<{ fieldname?: string; originalname?: string; size?: number; buffer?: Buffer; path?: string }> = [];
  const r = req as Request & { file?: (typeof files)[number]; files?: (typeof files) | Record<string, typeof files> };
  if (r.file) files.push(r.file);
  if (Array.isArray(r.files)) files.push(...r.files);
  else if (r.files) files.push(...Object.values(r.files).flat());
  const out: unknown[] = [];
  for (const f of files) {
    out.push({ field: f.fieldname ?? null, name: f.originalname ?? null, size: f.size ?? null, sha256: await fileDigest(f.buffer ?? (f.path ? await readFile(f.path) : Buffer.alloc(0))) });
  }
  if (Buffer.isBuffer(req.body)) out.push({ field: null, name: null, size: req.body.byteLength, sha256: await fileDigest(req.body) });
  return out;
}

/**
 * Runs a command for an HTTP request through the bus (idempotent on X-Request-Id) and sends
 * the answer, minting tokens from the reply's grant so that a retry gets the same ones. The
 * fingerprint covers method, path, caller, company, body (without secret fields) and the
 * bytes of any file, keyed (see core/fingerprint.ts).
 */
export async function send(
  req: Request,
  res: Response,
  bus: CommandBus,
  plan: (ctx: RequestContext) => Promise<Plan>,
  tokens?: TokenService,
  options: SendOptions = {},
): Promise<{ status: number; position: number }> {
  const ctx = ctxOf(res);
  const key = clientRequestId(req);
  const requestBody: unknown = Buffer.isBuffer(req.body) ? null : (req.body ?? null);
  const idempotency = key
    ? {
        key,
        fingerprint: bus.fingerprint([req.method, req.baseUrl + req.path, ctx.userId ?? null, ctx.companyId ?? null, requestBody, await filesOf(req), options.bind ?? null]),
        ...(options.mayReplayGrant ? { mayReplayGrant: options.mayReplayGrant } : {}),
      }
    : undefined;
  const reply = await bus.run(ctx, () => plan(ctx), idempotency);
  let body = reply.body;
  if (options.answer && reply.status < 300) body = { ...(body as object), ...(await options.answer(ctx)) };
  if (reply.grant && tokens) body = { ...(body as object), ...(await tokens.mint(reply.grant)) };
  if (reply.position > 0) res.setHeader('X-Position', String(reply.position));
  // 'behind': the answer's own events are not in every list yet (the web app says so and asks again with X-Min-Position).
  if (reply.readSide) res.setHeader('X-Read-Side', reply.readSide);
  res.status(reply.status).json(body);
  return { status: reply.status, position: reply.position };
}
