/**
 * PROJECTOR=thread (ADR 0008): the projections run in a worker thread with their own SQLite
 * connections. A write's read-your-writes wait ends when the thread's commit is reported (not
 * at the follower's 1 s poll, nor at the read store's 200 ms group commit); what the request
 * thread reads right after is what the thread committed (no kept count, page or cursor from
 * before it); closing waits for the thread's last commit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../infra/src/readstore/sqlite';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const statement = (...lines: string[]) => Buffer.from([HEADER, ...lines].join('\n') + '\n');

let api: Api;
let ada: Account;

async function list(query: Record<string, string> = {}): Promise<{ transactions: Array<{ id: string; description: string }>; pagination: { total: number } }> {
  const res = await api.http.get('/api/transactions').query({ limit: '2', sort_by: 'transaction_date', ...query }).set(ada.headers()).expect(200);
  return res.body;
}

describe('projections in a thread of their own', () => {
  beforeAll(async () => {
    api = await startApi({ READ_STORE: 'sqlite', PROJECTOR: 'thread' } as Record<string, string>);
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('runs the projections in the thread', () => {
    expect(api.paperlink.projectorThread).toBe(true);
  });

  it('a write is answered once the thread has committed it, without a polling delay, and a read right after shows it', async () => {
    const took: number[] = [];
    for (let i = 0; i < 12; i++) {
      const started = performance.now();
      await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: `Category ${i}` }).expect(201);
      took.push(performance.now() - started);
      const items = (await api.http.get('/api/masterdata/categories').set(ada.headers()).expect(200)).body as Array<{ name: string }>;
      expect(items.map((c) => c.name)).toContain(`Category ${i}`);
    }
    took.sort((a, b) => a - b);
    // Woken by polls instead, each write would wait for the group commit (200 ms) or the follower's poll (1 s).
    expect(took[Math.floor(took.length / 2)]).toBeLessThan(150);
    const head = await api.paperlink.adapters.events.headPosition();
    expect(api.paperlink.runner.position).toBe(head);
    const details = await api.http.get('/api/health/details').set(ada.headers()).expect(200);
    expect(details.body.projections).toMatchObject({ lag: 0 });
    // The System page: each projection's checkpoint as the thread committed it.
    const system = await api.http.get('/api/system/rebuilds').set(ada.headers()).expect(200);
    expect(system.body).toMatchObject({ head, position: head, rebuilds: [] });
    expect((system.body.projections as Array<{ position: number }>).every((p) => p.position === head)).toBe(true);
  });

  it('a list right after an import or an edit shows it: no kept count or page from before the thread\'s commit', async () => {
    await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', statement('2024-05-02,BLUE BOTTLE COFFEE,-4.50,,,,,', '2024-05-03,TEA HOUSE,-3.20,,,,,', '2024-05-04,NOODLE BAR,-12.00,,,,,'), 'may.csv').expect(200);
    const first = await list();
    expect(first.pagination.total).toBe(3);
    expect(first.transactions.map((t) => t.description)).toEqual(['NOODLE BAR', 'TEA HOUSE']);
    // The count and this page are kept by the request thread's connection; the thread writes the next rows.
    await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', statement('2024-06-01,SHELL OIL,-60.00,,,,,', '2024-06-02,HOME DEPOT,-20.00,,,,,'), 'june.csv').expect(200);
    const second = await list();
    expect(second.pagination.total).toBe(5);
    expect(second.transactions.map((t) => t.description)).toEqual(['HOME DEPOT', 'SHELL OIL']);
    const id = second.transactions[0]!.id;
    expect((await list({ category: 'Office' })).pagination.total).toBe(0);
    await api.http.put(`/api/transactions/${id}`).set(ada.headers()).send({ description: 'HOME DEPOT #4521', amount: '-20.00', category: 'Office', job_number: 'J-1', cost_code: '01-100' }).expect(200);
    expect((await list()).transactions[0]).toMatchObject({ id, description: 'HOME DEPOT #4521' });
    expect((await list({ category: 'Office' })).pagination.total).toBe(1);
  });

  it('closing waits for the thread\'s last commit: the read models hold every event', async () => {
    const head = await api.paperlink.adapters.events.headPosition();
    const file = (api.paperlink.adapters.readStore as SqliteReadStore).file;
    await api.paperlink.close();
    const store = new SqliteReadStore(file);
    try {
      const positions = (await store.getCheckpoints()).filter((c) => !c.name.includes(':') && !c.name.includes('@')).map((c) => c.position);
      expect(positions.length).toBeGreaterThan(5);
      expect(Math.min(...positions)).toBe(head);
    } finally {
      await store.close();
    }
  });
});
