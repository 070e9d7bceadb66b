import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandBus, errorHandler, requestContext, send } from '@paperlink/command-api';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

/** Deeply nested JSON overflowed the fingerprint's stack and answered 500. */

/** `{"a":{"a":...{"a":1}...}}` nested `depth` levels deep, as raw text (JSON.stringify could not make it). */
function nested(depth: number): string {
  return `{"firstName":"Deep","lastName":"Nest","x":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;
}

let api: Api;
let acc: Account;
beforeAll(async () => {
  api = await startApi();
  acc = await registerAccount(api);
});
afterAll(() => api?.close());

describe('deeply nested JSON', () => {
  it('is refused at the edge with 400 and a clear message, with or without a request id', async () => {
    for (const id of ['deep-json-request-1', undefined]) {
      const req = api.http.put('/api/auth/profile').set(acc.headers()).set('content-type', 'application/json');
      if (id) req.set('x-request-id', id);
      const res = await req.send(nested(100_000));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('too_deep');
      expect(res.body.error).toMatch(/nested.*32/i);
    }
  });

  it('allows 32 levels and refuses 33', async () => {
    const ok = await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', 'deep-json-32-levels').set('content-type', 'application/json').send(nested(32));
    expect(ok.status).toBe(200);
    const tooDeep = await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', 'deep-json-33-levels').set('content-type', 'application/json').send(nested(33));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.code).toBe('too_deep');
  });

  it('the fingerprint itself is safe: a router mounted without the edge limit answers 400, not 500', async () => {
    const bus = new CommandBus(new SqliteEventStore(':memory:'));
    const app = express();
    app.use(express.json({ limit: '1mb' }));
    app.use(requestContext);
    app.post('/echo', async (req, res) => {
      await send(req, res, bus, async () => ({ appends: [], body: { ok: true } }));
    });
    app.use(errorHandler(() => {}));
    const res = await request(app).post('/echo').set('x-request-id', 'deep-json-no-edge-1').set('content-type', 'application/json').send(nested(100_000));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('too_deep');
  });
});
