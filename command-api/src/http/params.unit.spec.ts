import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { newId } from '../core/ids';
import { errorHandler } from './errors';
import { validIdParams } from './params';

/** One validator for every id-like route param, so that `__proto__` and friends never reach a state keyed by id. */
function app() {
  const router = validIdParams(express.Router());
  router.get('/things/:id', (req, res) => void res.json({ id: req.params.id }));
  router.delete('/companies/current/users/:userId', (req, res) => void res.json({ userId: req.params.userId }));
  const a = express();
  a.use(router);
  a.use(errorHandler(() => {}));
  return request(a);
}

describe('validIdParams', () => {
  it('lets our ids through (UUID v7 we make, and v4 made by other tools)', async () => {
    const id = newId();
    expect((await app().get(`/things/${id}`)).body).toEqual({ id });
    expect((await app().get('/things/3F2504E0-4F89-41D3-9A0C-0305E82C3301')).status).toBe(200);
    expect((await app().delete(`/companies/current/users/${id}`)).body).toEqual({ userId: id });
  });

  it.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'x', '..', `${newId()}x`, ' 0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b', 'a'.repeat(5000)])('refuses %j with a 404 and a clear message', async (bad) => {
    for (const res of [await app().get(`/things/${encodeURIComponent(bad)}`), await app().delete(`/companies/current/users/${encodeURIComponent(bad)}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('invalid_id');
      expect(res.body.error).toMatch(/not a valid id/);
    }
  });
});
