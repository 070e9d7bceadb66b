import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { queryOperations } from '@paperlink/query-api';
import { roleProblem, servedBy, type ProcessRole } from './gate';

function appOf(role: ProcessRole) {
  const app = express();
  app.get('/api/health', (_req, res) => res.json({ status: 'ok' }));
  const api = express.Router();
  api.use(servedBy(role, queryOperations));
  api.all('/{*rest}', (_req, res) => res.json({ served: true }));
  app.use('/api', api);
  return request(app);
}

describe('role gate', () => {
  it('a worker answers /api/health and nothing else: 421 wrong_process for reads and writes', async () => {
    const http = appOf('worker');
    expect((await http.get('/api/health')).status).toBe(200);
    for (const res of [await http.get('/api/receipts'), await http.post('/api/auth/register').send({}), await http.get('/api/system/job-failures')]) {
      expect(res.status).toBe(421);
      expect(res.body).toEqual({ error: 'This process runs jobs only (PAPERLINK_ROLE=worker): send requests to the command or query API.', code: 'wrong_process' });
    }
  });

  it('the other roles keep their answers', async () => {
    expect((await appOf('all').post('/api/auth/register')).body).toEqual({ served: true });
    expect((await appOf('command').post('/api/auth/register')).body).toEqual({ served: true });
    expect((await appOf('query').get('/api/receipts')).body).toEqual({ served: true });
    expect((await appOf('query').post('/api/auth/register')).status).toBe(421);
    const projector = await appOf('projector').get('/api/receipts');
    expect(projector.status).toBe(421);
    expect(projector.body.error).toContain('PAPERLINK_ROLE=projector');
  });

  it('refuses the worker role without Kafka, with a message that says what to set', () => {
    expect(roleProblem({ PAPERLINK_ROLE: 'worker' })).toBe('PAPERLINK_ROLE=worker runs the jobs it takes from Kafka: set KAFKA_BROKERS. Without Kafka, jobs run in the process that runs the projections (PAPERLINK_ROLE=all or projector).');
    expect(roleProblem({ PAPERLINK_ROLE: 'worker', KAFKA_BROKERS: ' ' })).toMatch(/set KAFKA_BROKERS/);
    expect(roleProblem({ PAPERLINK_ROLE: 'worker', KAFKA_BROKERS: 'k1:9092' })).toBeNull();
    for (const role of ['all', 'command', 'query', 'projector'] as const) expect(roleProblem({ PAPERLINK_ROLE: role })).toBeNull();
  });
});
