import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerStream, statementFileStream, statementIndexStream, type EventStore } from '@paperlink/domain';
import { startApi, type Api } from '../support/harness';

/**
 * A data folder written by 3dfe0f7 (made by test/fixtures/imports-3dfe0f7/make.ts), whose
 * ledger knows three statements and no file claims (ADR 0023): the first import after the
 * upgrade reads that ledger once and claims every file; later imports read the claim of their
 * file and find the ledger's revision with point reads, never the ledger whole. A column mapping
 * saved in the company's one mapping stream still applies; a new one goes to its header's stream.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'imports-3dfe0f7');
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  JWT_SECRET: string;
  companyId: string;
  ada: { email: string; password: string };
  statements: Record<string, string>;
  mapping: Record<string, unknown>;
  imports: Record<string, { imported: number; fileHash: string }>;
};

/** Reads of the ledger stream, by whether they were bounded (maxCount given). */
const ledgerReads = { whole: 0, bounded: 0 };
function countingLedgerReads(events: EventStore): EventStore {
  return new Proxy(events, {
    get(target, prop, receiver) {
      if (prop === 'readStream') {
        const read: EventStore['readStream'] = (streamId, options) => {
          if (streamId === ledgerStream(facts.companyId)) {
            if (options?.maxCount === undefined) ledgerReads.whole++;
            else ledgerReads.bounded++;
          }
          return target.readStream(streamId, options);
        };
        return read;
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let dir: string;
let api: Api;
let headers: Record<string, string>;
const importFile = (name: string, csv: string) => api.http.post('/api/transactions/import').set(headers).attach('csvFile', Buffer.from(csv), name);
const claims = async (hash: string) => (await api.paperlink.adapters.events.readStream(statementFileStream(facts.companyId, hash))).length;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paperlink-imports-3dfe0f7-'));
  cpSync(join(FIXTURE, 'data-3dfe0f7'), dir, { recursive: true });
  api = await startApi({ JWT_SECRET: facts.JWT_SECRET }, dir, { wrapEvents: countingLedgerReads, noJobs: true });
  const login = await api.http.post('/api/auth/login').set('x-company-id', facts.companyId).send({ email: facts.ada.email, password: facts.ada.password });
  expect(login.status).toBe(200);
  headers = { authorization: `Bearer ${login.body.accessToken}`, 'x-company-id': facts.companyId };
});

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statement imports in a data folder made by 3dfe0f7', () => {
  it('the old ledger is indexed once; the same files stay imported; later imports never read the ledger whole', async () => {
    const [march, april] = [facts.imports['march.csv']!, facts.imports['april.csv']!];
    expect(await claims(march.fileHash)).toBe(0);
    const events = api.paperlink.adapters.events;
    expect(await events.readStream(statementIndexStream(facts.companyId))).toHaveLength(0);

    // The first import after the upgrade: the ledger says these bytes came before.
    const again = await importFile('march.csv', facts.statements['march.csv']!);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ imported: 0, skipped: 3, alreadyImported: true });
    expect(ledgerReads.whole).toBe(1);
    expect(await claims(march.fileHash)).toBe(1);
    expect(await claims(april.fileHash)).toBe(1);
    expect(await claims(facts.imports['bank.csv']!.fileHash)).toBe(1);
    const index = await events.readStream(statementIndexStream(facts.companyId));
    expect(index.map((e) => [e.type, e.data])).toEqual([['StatementLedgerIndexed', { companyId: facts.companyId, throughRevision: 2 }]]);

    // From now on: the claim decides the same bytes, the ledger is read a point at a time.
    expect((await importFile('april.csv', facts.statements['april.csv']!)).body).toMatchObject({ imported: 0, alreadyImported: true });
    const may = [...facts.statements['april.csv']!.split('\n').slice(0, 1), '2024-05-06,TEA HOUSE,-3.20,,,,,'].join('\n');
    expect((await importFile('may.csv', may)).body).toMatchObject({ imported: 1, alreadyImported: false });
    const june = [...facts.statements['april.csv']!.split('\n').slice(0, 1), '2024-06-06,TEA HOUSE,-3.20,,,,,', '2024-03-01,coffee corner,-4.50,,,,,'].join('\n');
    expect((await importFile('june.csv', june)).body).toMatchObject({ imported: 1, skipped: 1 });
    expect((await importFile('may.csv', may)).body).toMatchObject({ imported: 0, alreadyImported: true });
    expect(ledgerReads.whole).toBe(1);
    expect(ledgerReads.bounded).toBeGreaterThan(0);
    const ledger = await events.readStream(ledgerStream(facts.companyId));
    expect(ledger.map((e) => e.type)).toEqual(Array(5).fill('StatementImported'));
    expect(await events.readStream(statementIndexStream(facts.companyId))).toHaveLength(1);

    const list = await api.http.get('/api/transactions').query({ limit: 100 }).set(headers).expect(200);
    expect(list.body.transactions).toHaveLength(3 + 2 + 1 + 1 + 1);
  });

  it('a column mapping saved by 3dfe0f7 still applies; one saved now is read from its header\'s stream', async () => {
    const header = facts.statements['bank.csv']!.split('\n')[0]!;
    const dates = async () => ((await api.http.get('/api/transactions').query({ limit: 100 }).set(headers).expect(200)).body.transactions as Array<{ description: string; transaction_date: string }>)
      .filter((t) => t.description.startsWith('Bank '))
      .map((t) => [t.description, t.transaction_date]);
    // The old mapping reads dates day first.
    expect((await importFile('bank-2.csv', `${header}\n07/02/2024,Bank one,-10.00\n`)).body).toMatchObject({ imported: 1 });
    // A new mapping (month first) is saved with the import that sends it, and used after.
    const mdy = { ...facts.mapping, dateOrder: 'mdy' };
    const sent = await api.http.post('/api/transactions/import').set(headers).field('mapping', JSON.stringify(mdy)).attach('csvFile', Buffer.from(`${header}\n07/03/2024,Bank two,-11.00\n`), 'bank-3.csv');
    expect(sent.body).toMatchObject({ imported: 1 });
    expect((await importFile('bank-4.csv', `${header}\n07/04/2024,Bank three,-12.00\n`)).body).toMatchObject({ imported: 1 });
    expect((await dates()).sort()).toEqual([['Bank one', '2024-02-07'], ['Bank three', '2024-07-04'], ['Bank two', '2024-07-03']]);
  });
});
