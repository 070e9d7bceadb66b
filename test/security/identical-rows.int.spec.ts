/**
 * ADR 0005: identical rows inside one statement are real purchases (two coffees on
 * one day). A row is a duplicate only as many times as the company already holds it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedReadStore } from '../../infra/src/adapters';
import { loadConfig } from '../../infra/src/config';
import { dataDir } from '../../infra/src/data-dir';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const statement = (...lines: string[]) => Buffer.from([HEADER, ...lines].join('\n') + '\n');
const COFFEE = '2024-05-02,BLUE BOTTLE COFFEE,-4.50,,,,,';
const TEA = '2024-05-02,TEA HOUSE,-3.20,,,,,';
const LUNCH = '2024-05-03,NOODLE BAR,-12.00,,,,,';

let api: Api;
let ada: Account;

async function importFile(who: Account, bytes: Buffer, name: string) {
  const res = await api.http.post('/api/transactions/import').set(who.headers()).attach('csvFile', bytes, name);
  expect(res.status).toBe(200);
  return res.body as { imported: number; skipped: number; alreadyImported: boolean; duplicates: Array<{ row: number; reason: string }> };
}
async function count(who: Account, description: string) {
  const res = await api.http.get('/api/transactions').query({ limit: 500 }).set(who.headers()).expect(200);
  return (res.body.transactions as Array<{ description: string }>).filter((t) => t.description === description).length;
}

describe('identical rows of one statement', () => {
  beforeAll(async () => {
    api = await startApi();
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  });
  afterAll(() => api?.close());

  it('imports both of two identical coffees on one day', async () => {
    const r = await importFile(ada, statement(COFFEE, COFFEE, TEA), 'may.csv');
    expect(r).toMatchObject({ imported: 3, skipped: 0 });
    expect(await count(ada, 'BLUE BOTTLE COFFEE')).toBe(2);
  });

  it('re-importing the file adds nothing, and neither do its rows in another file', async () => {
    expect(await importFile(ada, statement(COFFEE, COFFEE, TEA), 'may.csv')).toMatchObject({ imported: 0, skipped: 3, alreadyImported: true });
    // Other bytes (rows reordered, description in lower case), the same lines.
    expect(await importFile(ada, statement(TEA, COFFEE.toLowerCase(), COFFEE), 'may-again.csv')).toMatchObject({ imported: 0, skipped: 3, alreadyImported: false });
    expect(await count(ada, 'BLUE BOTTLE COFFEE')).toBe(2);
  });

  it('a file with three identical rows where the company holds one adds two', async () => {
    expect(await importFile(ada, statement(LUNCH), 'lunch-1.csv')).toMatchObject({ imported: 1 });
    const r = await importFile(ada, statement(LUNCH, LUNCH, LUNCH), 'lunch-3.csv');
    expect(r).toMatchObject({ imported: 2, skipped: 1 });
    expect(r.duplicates.map((d) => d.row)).toEqual([2]);
    expect(await count(ada, 'NOODLE BAR')).toBe(3);
  });

  it('a deleted transaction no longer counts as held; an edited one still does (its key is the line as the bank sent it)', async () => {
    const coffees = ((await api.http.get('/api/transactions').query({ limit: 500 }).set(ada.headers())).body.transactions as Array<{ id: string; description: string }>)
      .filter((t) => t.description === 'BLUE BOTTLE COFFEE');
    expect(coffees).toHaveLength(2);
    await api.http.delete(`/api/transactions/${coffees[0]!.id}`).set(ada.headers()).expect(200);
    expect(await importFile(ada, statement(COFFEE, COFFEE, COFFEE), 'three-coffees.csv')).toMatchObject({ imported: 2, skipped: 1 });
    expect(await count(ada, 'BLUE BOTTLE COFFEE')).toBe(3);
    // One of them renamed: the company still holds three of the line as the bank sent it.
    const one = ((await api.http.get('/api/transactions').query({ limit: 500 }).set(ada.headers())).body.transactions as Array<{ id: string; description: string }>)
      .find((t) => t.description === 'BLUE BOTTLE COFFEE')!;
    const edit = await api.http.put(`/api/transactions/${one.id}`).set(ada.headers()).send({ description: 'BLUE BOTTLE BEANS', category: 'MEALS', job_number: 'J-1', cost_code: '01-100', amount: -4.5 });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(await importFile(ada, statement(COFFEE, COFFEE, COFFEE, TEA), 'three-coffees-and-tea.csv')).toMatchObject({ imported: 0, skipped: 4 });
  });
});

describe('a data folder made before the key counts', () => {
  it('rebuilds the duplicate keys on start, so old imports still count as held', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paperlink-keys-'));
    try {
      let first = await startApi({}, folder);
      const owner = await registerAccount(first, { firstName: 'Old', lastName: 'Folder' });
      api = first;
      expect(await importFile(owner, statement(COFFEE, TEA), 'old.csv')).toMatchObject({ imported: 2 });
      await first.close();

      // The read models as the code before this change left them: one transaction id per key, projection version 2.
      const store = await openEmbeddedReadStore(loadConfig({}), dataDir(folder));
      const keys = await store.collection('transaction_keys').find({});
      expect(keys.length).toBe(2);
      const writes = new Map([['transaction_keys', new Map(keys.map((k) => [k._id, { _id: k._id, transactionId: 'some-transaction' }]))]]);
      const cp = (await store.getCheckpoints()).find((c) => c.name === 'transactions')!;
      await store.commit(writes, [{ ...cp, version: 2 }]);
      await store.close();

      first = await startApi({}, folder);
      api = first;
      expect(await importFile(owner, statement(COFFEE, COFFEE, TEA), 'new.csv')).toMatchObject({ imported: 1, skipped: 2 });
      expect(await count(owner, 'BLUE BOTTLE COFFEE')).toBe(2);
      await first.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
