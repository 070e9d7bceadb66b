/**
 * ADR 0007: the OpenAPI 3.1 document lists every route the app has registered, and
 * nothing it has not, so it cannot drift; /api/docs renders it without any script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '@paperlink/command-api';
import type request from 'supertest';
import { invite, registerAccount, startApi, type Api } from '../support/harness';

let api: Api;

beforeAll(async () => {
  api = await startApi({}, undefined, { noJobs: true });
});
afterAll(() => api?.close());

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route registered on the app, as `METHOD /full/path`, found by walking its routers. */
function registeredRoutes(stack: Layer[], prefix = ''): { routes: string[]; patterns: string[] } {
  const routes: string[] = [];
  const patterns: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const path = layer.route.path;
      const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m] && m !== '_all');
      if (typeof path !== 'string') patterns.push(`${methods.join(',').toUpperCase()} ${prefix}${String(path)}`);
      else for (const m of methods) routes.push(`${m.toUpperCase()} ${prefix}${path === '/' ? '' : path}`);
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      const inner = registeredRoutes(layer.handle.stack, prefix + mount);
      routes.push(...inner.routes);
      patterns.push(...inner.patterns);
    }
  }
  return { routes, patterns };
}

describe('the OpenAPI document', () => {
  it('lists every registered /api route, and only those', async () => {
    const res = await api.http.get('/api/openapi.json').expect(200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} /api${path}`)).sort();

    const app = api.paperlink.app as unknown as { router: { stack: Layer[] } };
    const { routes, patterns } = registeredRoutes(app.router.stack);
    // The one route that is not an API path: the web app's catch-all for everything outside /api.
    expect(patterns).toEqual(['GET /^(?!\\/api(\\/|$)).*/']);
    const registered = [...new Set(routes.map((r) => { const [m, p] = r.split(' '); return `${m} ${openApiPath(p!)}`; }))].sort();
    expect(registered.every((r) => / \/api\//.test(r))).toBe(true);
    expect(registered.length).toBeGreaterThan(55);

    const missing = registered.filter((r) => !documented.includes(r));
    const extra = documented.filter((r) => !registered.includes(r));
    expect(missing, 'routes that the document does not list').toEqual([]);
    expect(extra, 'documented operations that no route serves').toEqual([]);
  });

  it('describes inputs with the schemas the routers parse with', async () => {
    const doc = (await api.http.get('/api/openapi.json').expect(200)).body;
    const list = doc.paths['/transactions'].get;
    const startDate = list.parameters.find((p: { name?: string }) => p.name === 'startDate');
    expect(startDate).toMatchObject({ in: 'query', required: false, schema: { type: 'string', format: 'date' } });
    const limit = list.parameters.find((p: { name?: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    const register = doc.paths['/auth/register'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(register.properties).sort()).toEqual(['companyName', 'email', 'firstName', 'lastName', 'password']);
    const id = doc.paths['/receipts/{id}'].get.parameters.find((p: { name?: string }) => p.name === 'id');
    expect(id).toMatchObject({ in: 'path', required: true, schema: { type: 'string' } });
    expect(doc.paths['/receipts/upload'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['receipt']);
    expect(doc.paths['/masterdata/{kind}'].get.parameters[0].schema.enum).toEqual(['categories', 'job_numbers', 'cost_codes']);
    // Read-your-writes (ADR 0030): a write answers its position and read side; a signed-in read may ask for a position.
    expect(list.parameters.map((p: { $ref?: string }) => p.$ref).filter(Boolean)).toEqual(expect.arrayContaining(['#/components/parameters/MinPosition', '#/components/parameters/Prefer']));
    expect(Object.keys(doc.paths['/transactions/import'].post.responses['200'].headers).sort()).toEqual(['X-Position', 'X-Read-Side']);
    expect(doc.paths['/health'].get.parameters ?? []).not.toContainEqual({ $ref: '#/components/parameters/MinPosition' });
    // Every operation says who may call it, and every error answer is { error, code, details? }.
    for (const item of Object.values(doc.paths) as Array<Record<string, Record<string, unknown>>>) {
      for (const op of Object.values(item)) {
        expect(['none', 'user', 'company', 'company-path', 'upload-link']).toContain(op['x-paperlink-auth']);
        for (const [status, r] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>)) {
          if (Number(status) >= 400) expect(r.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
    expect(doc.components.schemas.Error.required).toEqual(['error', 'code']);
    const operationIds = (Object.values(doc.paths) as Array<Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('says who may call each operation, as the server checks it', async () => {
    const doc = (await api.http.get('/api/openapi.json').expect(200)).body as { paths: Record<string, Record<string, { 'x-paperlink-auth': string }>> };
    const stranger = '01a20000-0000-7000-8000-000000000000';
    const shared = await registerAccount(api);
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const url = `/api${path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'kind' ? 'categories' : name === 'token' ? 'not-a-token' : stranger))}`;
        const call = () => (api.http as unknown as Record<string, (u: string) => request.Test>)[method]!(url);
        const auth = op['x-paperlink-auth'];
        // (a fresh account for account operations: logout-all and a password change end sessions)
        const someone = auth === 'user' ? await registerAccount(api) : shared;
        const anonymous = await call().send({});
        if (auth === 'none') expect(anonymous.body.code, `${method} ${path}`).not.toBe('missing_token'); // (a wrong password is still a 401)
        else expect([anonymous.status, anonymous.body.code], `${method} ${path}`).toEqual([401, auth === 'upload-link' ? 'bad_upload_link' : 'missing_token']);
        if (auth === 'company') {
          const noCompany = await call().set('authorization', `Bearer ${someone.accessToken}`).send({});
          expect([noCompany.status, noCompany.body.code], `${method} ${path}`).toEqual([400, 'company_required']);
        }
        if (auth === 'company-path') {
          const notMember = await call().set('authorization', `Bearer ${someone.accessToken}`).send({});
          expect([notMember.status, notMember.body.code], `${method} ${path}`).toEqual([403, 'not_a_member']);
        }
        if (auth === 'user') {
          const signedIn = await call().set('authorization', `Bearer ${someone.accessToken}`).send({});
          expect([401, 403], `${method} ${path}`).not.toContain(signedIn.status);
          expect(signedIn.body.code, `${method} ${path}`).not.toBe('company_required');
        }
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(55);
  });

  it('names the roles an operation needs: a plain member is refused (403)', async () => {
    const doc = (await api.http.get('/api/openapi.json').expect(200)).body as { paths: Record<string, Record<string, { 'x-paperlink-auth': string; 'x-paperlink-roles'?: string[] }>> };
    const admin = await registerAccount(api);
    const plain = await registerAccount(api);
    await invite(api, admin, plain, 'user');
    const bodies: Record<string, object> = { name: { name: 'New name' }, invite: { email: admin.email, role: 'user' }, role: { role: 'admin' } };
    const refused: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op['x-paperlink-roles']) continue;
        const url = `/api${path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'kind' ? 'categories' : name === 'userId' ? admin.userId : name === 'id' && path.startsWith('/companies/') ? admin.companyId : '01a20000-0000-7000-8000-000000000000'))}`;
        let req = (api.http as unknown as Record<string, (u: string) => request.Test>)[method]!(url).set(plain.headers(admin.companyId));
        if (path.endsWith('/import')) req = req.attach('csvFile', Buffer.from('name\nTravel\n'), 'list.csv');
        else req = req.send(path.endsWith('/invite') ? bodies.invite! : path.endsWith('/role') ? bodies.role! : bodies.name!);
        const res = await req;
        expect([res.status, res.body.code], `${method} ${path}`).toEqual([403, expect.any(String)]);
        refused.push(`${method} ${path}`);
      }
    }
    expect(refused.length).toBeGreaterThanOrEqual(15);
  });

  it('is readable at /api/docs: every operation, no script, our CSP', async () => {
    const doc = (await api.http.get('/api/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const page = await api.http.get('/api/docs').expect(200).expect('content-type', /text\/html/);
    expect(page.text).not.toMatch(/<script|\son[a-z]+=|style=/i);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) expect(page.text).toContain(`<span class="method ${method}">${method.toUpperCase()}</span> <code>/api${path.replace(/&/g, '&#38;')}</code>`);
    }
    const css = await api.http.get('/api/docs/docs.css').expect(200).expect('content-type', /text\/css/);
    expect(css.text).toContain('.method');
  });
});
