import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * Duplicates are recognised by the card line as the bank sent it: a transaction whose description
 * or amount someone edited is still the same purchase when its statement comes in again, in the
 * same layout or in another bank's.
 */
const GENERIC = ['Transaction Date,Description,Amount', '2024-03-01,SQ *COFFEE CORNER,-4.50', '2024-03-02,AMZN MKTP US*2K4,-31.20', '2024-03-03,SHELL OIL 5744,-60.00'].join('\n');
const CHASE = ['Transaction Date,Post Date,Description,Category,Type,Amount,Memo', '03/01/2024,03/02/2024,SQ *COFFEE CORNER,Food & Drink,Sale,-4.50,', '03/02/2024,03/03/2024,AMZN MKTP US*2K4,Shopping,Sale,-31.20,', '03/03/2024,03/04/2024,SHELL OIL 5744,Gas,Sale,-60.00,'].join('\n');
const CAPITAL_ONE = ['Transaction Date,Posted Date,Card No.,Description,Category,Debit,Credit', '2024-03-01,2024-03-02,4821,SQ *COFFEE CORNER,Dining,4.50,', '2024-03-02,2024-03-03,4821,AMZN MKTP US*2K4,Merchandise,31.20,', '2024-03-03,2024-03-04,4821,SHELL OIL 5744,Gas,60.00,'].join('\n');

let api: Api;
let ada: Account;
beforeAll(async () => {
  api = await startApi();
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
});
afterAll(async () => api.close());

const importCsv = (csv: string, name: string) => api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(csv), name);
async function list() {
  const res = await api.http.get('/api/transactions').query({ limit: 100, sortBy: 'transaction_date', sortOrder: 'asc' }).set(ada.headers()).expect(200);
  return res.body.transactions as Array<{ id: string; description: string; amount: number }>;
}

describe('re-importing a statement after its transactions were edited', () => {
  it('adds nothing, in the same layout or in another bank\'s', async () => {
    expect((await importCsv(GENERIC, 'march.csv')).body).toMatchObject({ imported: 3, skipped: 0 });
    const [coffee, amazon, shell] = await list();
    const edit = (id: string, body: Record<string, unknown>) => api.http.put(`/api/transactions/${id}`).set(ada.headers()).send({ category: 'Meals', job_number: 'J-1', cost_code: 'C-1', ...body });
    expect((await edit(coffee!.id, { description: 'Coffee with the client', amount: -4.5 })).status).toBe(200);
    expect((await edit(amazon!.id, { description: 'Printer paper', amount: -30.2 })).status).toBe(200);
    expect((await edit(shell!.id, { description: 'SHELL OIL 5744', amount: -60 })).status).toBe(200);

    // The same lines with other bytes (a trailing line break), so the file itself is not recognised.
    const again = await importCsv(`${GENERIC}\n`, 'march-again.csv');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ imported: 0, skipped: 3, alreadyImported: false });
    for (const [csv, name] of [[CHASE, 'chase.csv'], [CAPITAL_ONE, 'capitalone.csv']] as const) {
      const other = await importCsv(csv, name);
      expect(other.status).toBe(200);
      expect(other.body).toMatchObject({ imported: 0, skipped: 3 });
    }
    const after = await list();
    expect(after.map((t) => [t.description, t.amount])).toEqual([['Coffee with the client', -4.5], ['Printer paper', -30.2], ['SHELL OIL 5744', -60]]);
  });

  it('a line with the edited text is a new card line and is imported; a deleted transaction comes back', async () => {
    const edited = ['Transaction Date,Description,Amount', '2024-03-02,Printer paper,-30.20'].join('\n');
    expect((await importCsv(edited, 'edited-text.csv')).body).toMatchObject({ imported: 1, skipped: 0 });
    const shell = (await list()).find((t) => t.description === 'SHELL OIL 5744')!;
    expect((await api.http.delete(`/api/transactions/${shell.id}`).set(ada.headers())).status).toBe(200);
    expect((await importCsv(`${GENERIC}\n\n`, 'march-third.csv')).body).toMatchObject({ imported: 1, skipped: 2 });
    expect(await list()).toHaveLength(4);
  });
});
