import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from '../support/harness';

/**
 * A data folder written by 5cae1b2 (made by test/fixtures/edited-5cae1b2/make.ts), whose
 * duplicate counts were moved by edits: two of its three imported lines had their description
 * and amount edited. After the upgrade the counts are rebuilt from the imported lines, so the
 * statement coming in again adds nothing, while a line with the edited text is a new purchase.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'edited-5cae1b2');
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  JWT_SECRET: string;
  companyId: string;
  ada: { email: string; password: string };
  statement: string;
  edited: Record<string, string>;
};

let dir: string;
let api: Api;
let headers: Record<string, string>;
const importCsv = (csv: string, name: string) => api.http.post('/api/transactions/import').set(headers).attach('csvFile', Buffer.from(csv), name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paperlink-edited-5cae1b2-'));
  cpSync(join(FIXTURE, 'data-5cae1b2'), dir, { recursive: true });
  api = await startApi({ JWT_SECRET: facts.JWT_SECRET }, dir, { noJobs: true });
  const login = await api.http.post('/api/auth/login').set('x-company-id', facts.companyId).send({ email: facts.ada.email, password: facts.ada.password });
  expect(login.status).toBe(200);
  headers = { authorization: `Bearer ${login.body.accessToken}`, 'x-company-id': facts.companyId };
});

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('duplicate counts in a data folder made by 5cae1b2, after edits', () => {
  it('the statement in other bytes adds nothing; the edits are kept', async () => {
    const again = await importCsv(`${facts.statement}\n`, 'march-again.csv');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ imported: 0, skipped: 3, alreadyImported: false });
    const list = await api.http.get('/api/transactions').query({ limit: 100 }).set(headers).expect(200);
    const byId = new Map((list.body.transactions as Array<{ id: string; description: string }>).map((t) => [t.id, t.description]));
    expect(byId.size).toBe(3);
    for (const [id, description] of Object.entries(facts.edited)) expect(byId.get(id)).toBe(description);
  });

  it('a line with the edited text is imported as a new card line', async () => {
    const header = facts.statement.split('\n')[0]!;
    expect((await importCsv(`${header}\n2024-03-02,Printer paper,-30.20\n`, 'edited-text.csv')).body).toMatchObject({ imported: 1, skipped: 0 });
  });
});
