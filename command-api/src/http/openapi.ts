import { Router } from 'express';
import { z } from 'zod';
import type { HttpMethod, Operation, OperationAuth, OperationBody, SuccessContent } from '@paperlink/domain/http/operation';

/**
 * The API described from the schemas the routers parse with, so it cannot drift from them. Every router
 * module lists its operations next to its routes (command-api/src/operations.ts,
 * query-api/src/operations.ts); `buildOpenApi` turns them into an OpenAPI 3.1 document whose
 * schemas are `z.toJSONSchema` of those same zod schemas, so the document cannot say one thing
 * while validation does another. A test walks the app's registered routes and fails when one
 * is missing here.
 */

export type { HttpMethod, Operation, OperationAuth, OperationBody, SuccessContent } from '@paperlink/domain/http/operation';

/** Every error answer: `{ error, code, details? }` (command-api/src/http/errors.ts). */
export const ErrorBody = z.object({
  error: z.string().meta({ description: 'A message for people' }),
  code: z.string().meta({ description: 'A stable code for programs' }),
  details: z.unknown().optional().meta({ description: 'Field problems (validation) or more about the error' }),
});

/** The operations of the docs themselves (mounted by `apiDocsRouter`). */
export const docsOperations: Operation[] = [
  { method: 'get', path: '/openapi.json', summary: 'This API as an OpenAPI 3.1 document', tags: ['docs'], auth: 'none', success: { status: 200, description: 'The document' } },
  { method: 'get', path: '/docs', summary: 'This API as a readable page', tags: ['docs'], auth: 'none', success: { status: 200, description: 'An HTML page (no script)', content: 'html' } },
  { method: 'get', path: '/docs/docs.css', summary: 'The stylesheet of the docs page', tags: ['docs'], auth: 'none', success: { status: 200, description: 'CSS', content: 'css' } },
];

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 of what a client sends (the input side of transforms and defaults). */
export function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

/** `/receipts/:id` → `/receipts/{id}` */
export const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

const WRITE: ReadonlySet<HttpMethod> = new Set(['post', 'put', 'delete']);

function errorResponses(op: Operation): Record<string, unknown> {
  const ref = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  const out: Record<string, string> = {};
  if (op.params || op.query || op.body || op.auth === 'company') out['400'] = 'The request is not valid (validation_failed, company_required, …)';
  if (op.auth !== 'none') out['401'] = op.auth === 'upload-link' ? 'The upload link is not valid or has expired' : 'Not signed in, or the session has ended';
  if (op.auth === 'company' || op.auth === 'company-path') out['403'] = 'Not a member of this company, or the role may not do this';
  if (op.params) out['404'] = 'No such record (or not one the caller may see)';
  if (WRITE.has(op.method) && op.auth !== 'none') out['409'] = 'A conflicting change, or an X-Request-Id reused for another request';
  if (op.body && 'multipart' in op.body) out['413'] = 'The file is too large';
  if (op.concurrency === 'if-match') out['412'] = 'If-Match names a revision the record no longer has: someone else changed it (precondition_failed); reload';
  for (const [status, description] of Object.entries(op.errors ?? {})) out[status] = description;
  return Object.fromEntries(Object.entries(out).map(([s, d]) => [s, ref(d)]));
}

const SUCCESS_CONTENT: Record<SuccessContent, Record<string, unknown>> = {
  json: { 'application/json': { schema: {} } },
  file: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
  'image/jpeg': { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } },
  html: { 'text/html': { schema: { type: 'string' } } },
  css: { 'text/css': { schema: { type: 'string' } } },
};

function parameters(op: Operation): unknown[] {
  const out: unknown[] = [];
  for (const [where, obj] of [['path', op.params], ['query', op.query]] as const) {
    if (!obj) continue;
    const schema = inputSchema(obj) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = s as { description?: string };
      out.push({ name, in: where, required: where === 'path' || (schema.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  if (op.auth === 'company') out.push({ $ref: '#/components/parameters/CompanyId' });
  if (WRITE.has(op.method) && op.auth !== 'none') out.push({ $ref: '#/components/parameters/RequestId' });
  if (op.concurrency === 'if-match') out.push({ $ref: '#/components/parameters/IfMatch' });
  if (op.method === 'get' && op.auth !== 'none' && op.auth !== 'upload-link') out.push({ $ref: '#/components/parameters/MinPosition' }, { $ref: '#/components/parameters/Prefer' });
  return out;
}

function requestBody(body: OperationBody): unknown {
  if ('json' in body) return { required: true, content: { 'application/json': { schema: inputSchema(body.json) } } };
  if ('raw' in body) return { required: true, content: { [body.raw]: { schema: { type: 'string', contentMediaType: body.raw } } } };
  const fields = body.multipart.fields ? (inputSchema(body.multipart.fields) as { properties?: Record<string, unknown>; required?: string[] }) : {};
  const files = Object.fromEntries(body.multipart.files.map((f) => [f, { type: 'string', contentMediaType: 'application/octet-stream' }]));
  return {
    required: true,
    content: { 'multipart/form-data': { schema: { type: 'object', properties: { ...files, ...(fields.properties ?? {}) }, required: [...body.multipart.files, ...(fields.required ?? [])] } } },
  };
}

/** The headers of a success: a record's ETag; a write's log position and whether the lists hold it (ADR 0030); a read's read side when asked. */
function successHeaders(op: Operation): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (op.concurrency === 'etag') out.ETag = { $ref: '#/components/headers/ETag' };
  if (WRITE.has(op.method) && op.auth !== 'none') out['X-Position'] = { $ref: '#/components/headers/Position' };
  if (op.auth !== 'none' && op.auth !== 'upload-link' && (op.method === 'get' || WRITE.has(op.method))) out['X-Read-Side'] = { $ref: '#/components/headers/ReadSide' };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One operation, with `x-paperlink-auth` / `x-paperlink-roles` saying who may call it. */
function operationObject(op: Operation): Record<string, unknown> {
  const params = parameters(op);
  return {
    operationId: `${op.method}${openApiPath(op.path).replace(/[{}]/g, '').split(/[/.-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags,
    security: op.auth === 'none' || op.auth === 'upload-link' ? [] : [{ bearerAuth: [] }],
    'x-paperlink-auth': op.auth,
    ...(op.roles?.length ? { 'x-paperlink-roles': op.roles } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: requestBody(op.body) } : {}),
    responses: {
      [String(op.success.status)]: {
        description: op.success.description,
        ...(successHeaders(op) ? { headers: successHeaders(op) } : {}),
        content: SUCCESS_CONTENT[op.success.content ?? 'json'],
      },
      ...errorResponses(op),
    },
  };
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, unknown>;
  tags: Array<{ name: string }>;
}

/** The OpenAPI 3.1 document of these operations (paths under /api). */
export function buildOpenApi(operations: Operation[], version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const path = openApiPath(op.path);
    const item = (paths[path] ??= {});
    if (item[op.method]) throw new Error(`operation listed twice: ${op.method.toUpperCase()} ${op.path}`);
    item[op.method] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Paperlink API',
      version,
      description: 'Expense tracking with receipt OCR and receipt-to-transaction matching. Errors are `{ error, code, details? }`. Writes are idempotent on X-Request-Id.',
    },
    servers: [{ url: '/api' }],
    paths,
    components: {
      schemas: { Error: inputSchema(ErrorBody) },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      parameters: {
        CompanyId: { name: 'X-Company-ID', in: 'header', required: true, description: 'The company the request acts in; the caller must be a member', schema: { type: 'string' } },
        RequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Retry key: a repeat with the same id and request gets the first answer', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' } },
        IfMatch: { name: 'If-Match', in: 'header', required: false, description: 'The ETag of the record as the caller read it: the write is refused with 412 if the record changed since (without it, the write goes ahead)', schema: { type: 'string' } },
        MinPosition: { name: 'X-Min-Position', in: 'header', required: false, description: "A write's X-Position: the read waits until the lists hold it (at most 5 s, or the Prefer wait) and says in X-Read-Side whether they do", schema: { type: 'string', pattern: '^[0-9]{1,16}$' } },
        Prefer: { name: 'Prefer', in: 'header', required: false, description: 'wait=<seconds> (RFC 7240): the longest an X-Min-Position read may wait, up to 5', schema: { type: 'string' } },
      },
      headers: {
        ETag: { description: "The record's revision, to send back in If-Match when editing it", schema: { type: 'string' } },
        Position: { description: "The log position of the write's last event (when it appended any): send it as X-Min-Position to read this write back", schema: { type: 'string' } },
        ReadSide: { description: "current or behind: whether the lists held the write's events (a write's answer) or X-Min-Position (a read) when answered", schema: { type: 'string', enum: ['current', 'behind'] } },
      },
    },
    tags: [...new Set(operations.flatMap((o) => o.tags))].map((name) => ({ name })),
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const AUTH_TEXT: Record<OperationAuth, string> = {
  none: 'public',
  user: 'signed in',
  company: 'member (X-Company-ID)',
  'company-path': 'member of the company in the path',
  'upload-link': 'signed upload link',
};

/** A readable page of the document: plain HTML and our own stylesheet, no script (strict CSP). */
export function renderDocsPage(doc: OpenApiDocument): string {
  const sections = doc.tags.map(({ name }) => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([, op]) => (op.tags as string[]).includes(name)).map(([method, op]) => ({ path, method, op })));
    const items = ops.map(({ path, method, op }) => {
      const params = (op.parameters as Array<Record<string, unknown>> | undefined) ?? [];
      const rows = params.map((p) => {
        const ref = p.$ref as string | undefined;
        const q = ref ? ((doc.components.parameters as Record<string, Record<string, unknown>>)[ref.split('/').pop()!]!) : p;
        return `<tr><td><code>${escape(String(q.name))}</code></td><td>${escape(String(q.in))}</td><td>${q.required ? 'required' : ''}</td><td><code>${escape(JSON.stringify(q.schema))}</code></td></tr>`;
      }).join('');
      const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
      const bodyHtml = body
        ? Object.entries(body.content).map(([type, c]) => `<p class="label">Body: <code>${escape(type)}</code></p><pre>${escape(JSON.stringify(c.schema, null, 2))}</pre>`).join('')
        : '';
      const responses = Object.entries(op.responses as Record<string, { description: string }>).map(([s, r]) => `<li><b>${escape(s)}</b> ${escape(r.description)}</li>`).join('');
      const auth = `${AUTH_TEXT[op['x-paperlink-auth'] as OperationAuth]}${op['x-paperlink-roles'] ? `: ${(op['x-paperlink-roles'] as string[]).join(', ')}` : ''}`;
      return `<section class="op" id="${escape(String(op.operationId))}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>/api${escape(path)}</code></h3>
<p>${escape(String(op.summary))}${op.description ? ` ${escape(String(op.description))}` : ''}</p>
<p class="label">Who: ${escape(auth)}</p>
${rows ? `<table><tr><th>Parameter</th><th>In</th><th></th><th>Schema</th></tr>${rows}</table>` : ''}
${bodyHtml}
<ul class="responses">${responses}</ul>
</section>`;
    }).join('\n');
    return `<h2 id="tag-${escape(name)}">${escape(name)}</h2>\n${items}`;
  }).join('\n');
  const toc = doc.tags.map(({ name }) => `<a href="#tag-${escape(name)}">${escape(name)}</a>`).join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} ${escape(doc.info.version)}</title><link rel="stylesheet" href="/api/docs/docs.css"></head>
<body><main><h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${escape(doc.info.description)} All paths are under <code>/api</code>. The machine-readable document is <a href="/api/openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<nav>${toc}</nav>
${sections}
</main></body></html>`;
}

const DOCS_CSS = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f7f8fa}
main{max-width:980px;margin:0 auto;padding:24px}h1 small{color:#667;font-weight:400}
h2{margin-top:40px;border-bottom:1px solid #dde;text-transform:capitalize}nav a{margin-right:4px}
.op{background:#fff;border:1px solid #dde;border-radius:6px;padding:4px 16px;margin:12px 0}
.op h3{font-size:16px}.method{display:inline-block;min-width:64px;text-align:center;border-radius:4px;color:#fff;padding:1px 6px;font-size:13px}
.get{background:#2b7bb9}.post{background:#2e8b57}.put{background:#b8860b}.delete{background:#b03a2e}
.label{color:#556;font-size:13px;margin:4px 0}pre{background:#f0f2f5;padding:8px;overflow:auto;font-size:12px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #dde;padding:2px 6px;text-align:left;vertical-align:top}
.responses{font-size:13px}`;

/** GET /openapi.json, GET /docs and its stylesheet: public, read-only, built once. */
export function apiDocsRouter(doc: OpenApiDocument): Router {
  const router = Router();
  const page = renderDocsPage(doc);
  router.get('/openapi.json', (_req, res) => void res.json(doc));
  router.get('/docs', (_req, res) => void res.type('html').send(page));
  router.get('/docs/docs.css', (_req, res) => void res.type('css').send(DOCS_CSS));
  return router;
}
