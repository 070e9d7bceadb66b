/**
 * ADR 0005: each member sees only their own. One company with an admin
 * (Ada), two plain users (Bo and Cy) and a manager (Mo, who sees only their own data too).
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';

let api: Api;
let ada: Account;
let bo: Account;
let cy: Account;
let mo: Account;

const [l1, l2, l3] = labels;
const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const csvLine = (date: string, description: string, amount: number, first = '', last = '') => `${date},${description},${(-amount).toFixed(2)},,,,${first},${last}`;

interface Tx { id: string; description: string; user_id: string; created_by_first_name: string | null; transaction_date: string; amount: number }
interface MatchRow { id: string; receipt_id: string; transaction_id: string; description: string | null; original_filename: string | null }

const inCompany = (who: Account) => who.headers(ada.companyId);
const transactions = async (who: Account) => (await api.http.get('/api/transactions').query({ limit: 500 }).set(inCompany(who)).expect(200)).body.transactions as Tx[];
const matches = async (who: Account, path = '/api/matches') => (await api.http.get(path).set(inCompany(who)).expect(200)).body as MatchRow[];

async function upload(who: Account, bytes: Buffer, name: string) {
  const res = await api.http.post('/api/receipts/upload').set(inCompany(who)).attach('receipt', bytes, name);
  expect(res.status).toBe(201);
  return res.body as { receipt: { id: string; duplicate_of: string | null }; duplicate: boolean };
}

async function completed(who: Account, id: string) {
  for (let i = 0; i < 200; i++) {
    const r = await api.http.get(`/api/receipts/${id}`).set(inCompany(who));
    if (r.status === 200 && r.body.receipt.processing_status === 'completed') return r.body.receipt as { id: string; duplicate_of: string | null };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`receipt ${id} never completed`);
}

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'Plain' });
  cy = await registerAccount(api, { firstName: 'Cy', lastName: 'Other' });
  mo = await registerAccount(api, { firstName: 'Mo', lastName: 'Manager' });
  await invite(api, ada, bo, 'user');
  await invite(api, ada, cy, 'user');
  await invite(api, ada, mo, 'manager');
  // Lines are assigned by the statement names an admin set for each member.
  for (const [who, name] of [[bo, 'Bo Plain'], [cy, 'Cy Other'], [mo, 'Mo Manager']] as const) {
    await api.http.put(`/api/companies/current/users/${who.userId}/statement-names`).set(ada.headers()).send({ names: [name] }).expect(200);
  }
});
afterAll(() => api?.close());

describe('manual matches and match reads (item 9)', () => {
  let boTx: Tx;
  let cyTx: Tx;
  let boR1: string;
  let boR2: string;

  beforeAll(async () => {
    // The admin imports a statement whose lines name Bo and Cy: Bo's line fits receipt 1,
    // Cy's private line fits receipt 2 as well as any line could.
    const csv = [HEADER, csvLine(l1!.date, l1!.merchant, l1!.total, 'Bo', 'Plain'), csvLine(l2!.date, `${l2!.merchant} CY PRIVATE`, l2!.total, 'Cy', 'Other')].join('\n');
    const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(csv), 'named.csv');
    expect(imp.status).toBe(200);
    expect(imp.body.imported).toBe(2);
    boTx = (await transactions(bo)).find((t) => t.description === l1!.merchant)!;
    cyTx = (await transactions(cy)).find((t) => t.description.includes('CY PRIVATE'))!;
    expect(boTx).toBeDefined();
    expect(cyTx).toBeDefined();
    boR1 = (await upload(bo, imageOf(l1!.id), 'bo-1.jpg')).receipt.id;
    boR2 = (await upload(bo, imageOf(l2!.id), 'bo-2.jpg')).receipt.id;
    await completed(bo, boR1);
    await completed(bo, boR2);
  });

  it('refuses a plain user who links her receipt to another member’s transaction, without revealing it', async () => {
    const res = await api.http.post('/api/matches').set(inCompany(bo)).send({ receiptId: boR2, transactionId: cyTx.id });
    expect([403, 404]).toContain(res.status);
    expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('CY PRIVATE');
    // The same answer as for a transaction that does not exist.
    const missing = await api.http.post('/api/matches').set(inCompany(bo)).send({ receiptId: boR2, transactionId: 'no-such-transaction' });
    expect(res.status).toBe(missing.status);
    expect(res.body).toEqual(missing.body);
    for (const path of ['/api/matches', '/api/matches/pending']) {
      expect(JSON.stringify(await matches(bo, path))).not.toContain('CY PRIVATE');
    }
    expect((await api.http.get(`/api/transactions/${cyTx.id}`).set(inCompany(cy)).expect(200)).body.transaction.receipt_count).toBe(0);
  });

  it('refuses her receipt of someone else the other way round too (her transaction, another’s receipt)', async () => {
    const cyReceipt = (await upload(cy, imageOf(l3!.id), 'cy-secret.jpg')).receipt.id;
    const res = await api.http.post('/api/matches').set(inCompany(bo)).send({ receiptId: cyReceipt, transactionId: boTx.id });
    expect([403, 404]).toContain(res.status);
    expect(JSON.stringify(await matches(bo))).not.toContain('cy-secret');
  });

  it('lets her match two records of her own', async () => {
    const res = await api.http.post('/api/matches').set(inCompany(bo)).send({ receiptId: boR1, transactionId: boTx.id });
    expect(res.status).toBe(200);
    expect((await matches(bo)).some((m) => m.receipt_id === boR1 && m.transaction_id === boTx.id)).toBe(true);
  });

  it('never shows a plain user a match one side of which belongs to someone else, nor lets her act on it', async () => {
    // An admin may link across members; neither member then sees the other's record through it.
    const made = await api.http.post('/api/matches').set(ada.headers()).send({ receiptId: boR2, transactionId: cyTx.id });
    expect(made.status).toBe(200);
    const matchId = made.body.match.id as string;
    expect((await matches(ada)).some((m) => m.id === matchId)).toBe(true);
    for (const who of [bo, cy]) {
      for (const path of ['/api/matches', '/api/matches/pending']) {
        const rows = await matches(who, path);
        expect(rows.some((m) => m.id === matchId)).toBe(false);
      }
      const stats = (await api.http.get('/api/matches/stats').set(inCompany(who)).expect(200)).body;
      expect(stats.total_matches).toBe((await matches(who)).length);
    }
    for (const who of [bo, cy]) {
      expect((await api.http.put(`/api/matches/${matchId}/confirm`).set(inCompany(who))).status).toBe(404);
      expect((await api.http.put(`/api/matches/${matchId}/reject`).set(inCompany(who))).status).toBe(404);
      expect((await api.http.delete(`/api/matches/${matchId}`).set(inCompany(who))).status).toBe(404);
    }
    expect((await matches(ada)).some((m) => m.id === matchId)).toBe(true);
    // Nor through the transaction: Cy's line does not name Bo's receipt file.
    const single = (await api.http.get(`/api/transactions/${cyTx.id}`).set(inCompany(cy)).expect(200)).body.transaction;
    expect(JSON.stringify(single)).not.toContain('bo-2.jpg');
    expect(JSON.stringify(await transactions(cy))).not.toContain('bo-2.jpg');
    const edit = await api.http.put(`/api/transactions/${cyTx.id}`).set(inCompany(cy)).send({ description: cyTx.description, category: 'MEALS', job_number: 'J-1', cost_code: '01-100', amount: cyTx.amount });
    expect(edit.status).toBe(200);
    expect(JSON.stringify(edit.body)).not.toContain('bo-2.jpg');
    // The admin sees the company's link.
    expect((await api.http.get(`/api/transactions/${cyTx.id}`).set(ada.headers()).expect(200)).body.transaction.receipts).toContain('bo-2.jpg');
  });

  it('"find" offers a plain user only her own transactions', async () => {
    const r3 = (await upload(bo, imageOf(l2!.id), 'bo-2-again.jpg')).receipt.id;
    await completed(bo, r3);
    const res = await api.http.post(`/api/matches/find/${r3}`).set(inCompany(bo)).send({ threshold: 0 });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('CY PRIVATE');
    expect(JSON.stringify(await matches(bo))).not.toContain('CY PRIVATE');
  });
});

describe('receipt duplicates (item 10)', () => {
  let cyFirst: string;

  beforeAll(async () => {
    cyFirst = (await upload(cy, imageOf(labels[5]!.id), 'cy-dup.jpg')).receipt.id;
    await completed(cy, cyFirst);
  });

  it('an upload answer never names another member’s receipt to a plain user or a manager', async () => {
    for (const who of [bo, mo]) {
      const up = await upload(who, imageOf(labels[5]!.id), 'same-bytes.jpg');
      expect(up.receipt.duplicate_of).toBeNull();
      expect(up.duplicate).toBe(false);
      expect(JSON.stringify(up)).not.toContain(cyFirst);
      const view = await completed(who, up.receipt.id);
      expect(view.duplicate_of).toBeNull();
      const listed = (await api.http.get('/api/receipts').set(inCompany(who)).expect(200)).body.receipts as Array<{ duplicate_of: string | null }>;
      expect(JSON.stringify(listed)).not.toContain(cyFirst);
      // Her own second copy is still flagged, against her own first.
      const again = await upload(who, imageOf(labels[5]!.id), 'same-bytes-again.jpg');
      expect(again.receipt.duplicate_of).toBe(up.receipt.id);
      expect(again.duplicate).toBe(true);
    }
  });

  it('the duplicate check lists only receipts the caller may see', async () => {
    const mine = (await upload(bo, imageOf(labels[6]!.id), 'bo-only.jpg')).receipt.id;
    const theirs = (await upload(cy, imageOf(labels[6]!.id), 'cy-same.jpg')).receipt.id;
    await completed(bo, mine);
    await completed(cy, theirs);
    for (const call of [
      api.http.get(`/api/receipts/${mine}/duplicates`).set(inCompany(bo)),
      api.http.post(`/api/receipts/${mine}/duplicate-check`).set(inCompany(bo)).send({}),
    ]) {
      const res = await call;
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain(theirs);
      expect(JSON.stringify(res.body)).not.toContain('cy-same');
      expect(res.body.duplicateAnalysis).toMatchObject({ isDuplicate: false, duplicates: [] });
    }
    // An admin sees the company: both copies are there.
    const admin = await api.http.get(`/api/receipts/${mine}/duplicates`).set(ada.headers()).expect(200);
    expect(admin.body.duplicateAnalysis.duplicates.map((d: { id: string }) => d.id)).toContain(theirs);
    const adminUpload = await upload(ada, imageOf(labels[6]!.id), 'ada.jpg');
    expect(adminUpload.duplicate).toBe(true);
  });

  it('a receipt recorded before the fix, naming another member’s receipt, shows its owner no such link', async () => {
    // What today's code recorded for Bo's upload of bytes Cy had sent first (an existing data folder).
    const first = await upload(cy, imageOf(labels[7]!.id), 'cy-legacy.jpg');
    const id = randomUUID();
    const bytes = imageOf(labels[7]!.id);
    const { position } = await api.paperlink.adapters.events.appendToStream(`receipt-${id}`, [{
      id: randomUUID(), type: 'ReceiptUploaded', metadata: { companyId: ada.companyId, userId: bo.userId, occurredAt: new Date().toISOString() },
      data: { receiptId: id, companyId: ada.companyId, userId: bo.userId, originalName: 'bo-legacy.jpg', contentType: 'image/jpeg', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), kind: 'jpeg', duplicateOf: first.receipt.id, via: 'multipart' },
    }], 'no_stream');
    await api.paperlink.runner.waitFor(position);
    const own = await api.http.get(`/api/receipts/${id}`).set(inCompany(bo)).expect(200);
    expect(own.body.receipt.duplicate_of).toBeNull();
    const listed = (await api.http.get('/api/receipts').query({ limit: 200 }).set(inCompany(bo)).expect(200)).body.receipts as Array<{ id: string; duplicate_of: string | null }>;
    expect(listed.find((r) => r.id === id)?.duplicate_of).toBeNull();
    expect(JSON.stringify(listed)).not.toContain(first.receipt.id);
    const corrected = await api.http.put(`/api/receipts/${id}`).set(inCompany(bo)).send({ extracted_merchant: 'Corner Shop' });
    expect(corrected.status).toBe(200);
    expect(corrected.body.receipt.duplicate_of).toBeNull();
    // The admin, who sees the company, still sees the link.
    expect((await api.http.get(`/api/receipts/${id}`).set(ada.headers()).expect(200)).body.receipt.duplicate_of).toBe(first.receipt.id);
  });
});

describe('CSV import by a plain user (item 11)', () => {
  it('keeps every row hers, whoever the lines name, and lists no other member', async () => {
    const csv = [
      HEADER,
      csvLine('2024-03-01', 'NAMED CY LUNCH', 12.5, 'Cy', 'Other'),
      csvLine('2024-03-02', 'NAMED ADA TAXI', 30, 'Ada', 'Admin'),
      csvLine('2024-03-03', 'NAMED MO HOTEL', 99, 'Mo', 'Manager'),
      csvLine('2024-03-04', 'NO NAME PARKING', 4),
      csvLine('2024-03-05', 'NAMED BO BOOKS', 20, 'Bo', 'Plain'),
    ].join('\n');
    const res = await api.http.post('/api/transactions/import').set(inCompany(bo)).attach('csvFile', Buffer.from(csv), 'mine.csv');
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(5);
    const body = JSON.stringify(res.body);
    for (const other of [ada, cy, mo]) expect(body).not.toContain(other.userId);
    for (const name of ['Ada Admin', 'Cy Other', 'Mo Manager']) {
      expect(res.body.userMatching.details.some((d: { assignedToName?: string | null }) => d.assignedToName === name)).toBe(false);
    }
    expect(res.body.userMatching.details.every((d: { assignedTo: string }) => d.assignedTo === bo.userId)).toBe(true);
    // The team endpoint refuses her the member list that an import must not give away.
    expect((await api.http.get('/api/companies/current/users').set(inCompany(bo))).status).toBe(403);

    const hers = (await transactions(bo)).filter((t) => t.description.startsWith('NAMED') || t.description.startsWith('NO NAME'));
    expect(hers).toHaveLength(5);
    expect(hers.every((t) => t.user_id === bo.userId && t.created_by_first_name === 'Bo')).toBe(true);
    for (const other of [cy, mo]) {
      expect((await transactions(other)).some((t) => t.description.startsWith('NAMED') || t.description.startsWith('NO NAME'))).toBe(false);
    }
    const all = (await transactions(ada)).filter((t) => t.description.startsWith('NAMED') || t.description.startsWith('NO NAME'));
    expect(all.every((t) => t.user_id === bo.userId)).toBe(true);
  });

  it('an admin’s import assigns lines to members by the statement names an admin set', async () => {
    const csv = [HEADER, csvLine('2024-04-01', 'ADMIN FOR CY', 7, 'Cy', 'Other')].join('\n');
    const res = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(csv), 'admin.csv');
    expect(res.status).toBe(200);
    expect(res.body.userMatching.details[0]).toMatchObject({ assignedTo: cy.userId, status: 'name_matched' });
    expect((await transactions(cy)).some((t) => t.description === 'ADMIN FOR CY')).toBe(true);
  });
});

describe('de-duplication of a plain member’s import is scoped to her own rows', () => {
  const secret = (tag: string) => Buffer.from(`Date,Description,Amount\n2024-04-01,U2 SECRET LUNCH ${tag},-55.00\n2024-04-02,TAXI ${tag},-23.40\n`);
  const importAs = async (who: Account, bytes: Buffer, name: string) => {
    const res = await api.http.post('/api/transactions/import').set(inCompany(who)).attach('csvFile', bytes, name);
    expect(res.status).toBe(200);
    return res.body as { imported: number; skipped: number; alreadyImported: boolean; duplicates: unknown[] };
  };

  it('a row only a colleague holds answers as a new row (it was "skipped: same date, description and amount")', async () => {
    expect(await importAs(cy, secret('A'), 'cy.csv')).toMatchObject({ imported: 2, skipped: 0 });
    const lone = await importAs(bo, Buffer.from('Date,Description,Amount\n2024-04-01,U2 SECRET LUNCH A,-55.00\n'), 'probe.csv');
    expect(lone).toMatchObject({ imported: 1, skipped: 0, alreadyImported: false });
    expect(lone.duplicates).toEqual([]);
    // Her own rows are still de-duplicated: the same line again is skipped.
    expect(await importAs(bo, Buffer.from('Date,Description,Amount\n2024-04-01,u2  secret lunch a,-55.00\n'), 'again.csv')).toMatchObject({ imported: 0, skipped: 1 });
  });

  it('a colleague’s exact file is not "already imported" for her; her own is', async () => {
    expect(await importAs(cy, secret('B'), 'cy-b.csv')).toMatchObject({ imported: 2 });
    expect(await importAs(bo, secret('B'), 'copy.csv')).toMatchObject({ imported: 2, skipped: 0, alreadyImported: false });
    expect(await importAs(bo, secret('B'), 'copy-again.csv')).toMatchObject({ imported: 0, alreadyImported: true });
  });

  it('an admin’s import still de-duplicates against the whole company', async () => {
    expect(await importAs(cy, secret('C'), 'cy-c.csv')).toMatchObject({ imported: 2 });
    expect(await importAs(ada, Buffer.from(`${secret('C').toString()}2024-04-03,NEW FOR ADMIN C,-1.00\n`), 'admin-c.csv')).toMatchObject({ imported: 1, skipped: 2 });
  });
});

describe('card lines follow the names an admin set, never a name a member chose', () => {
  it('a member who renames herself to fit a colleague’s lines gets none of them (she got them, and could read them)', async () => {
    await api.http.put(`/api/companies/current/users/${mo.userId}/statement-names`).set(ada.headers()).send({ names: ['J Smith'] }).expect(200);
    // Statement lines "J,Smith" (first name J, last name Smith).
    const line = (n: number) => `${HEADER}\n2024-05-0${n},CARD LINE ${n},-1${n}.00,,,,J,Smith\n`;
    const first = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(line(1)), 'card-1.csv').expect(200);
    expect(first.body.userMatching.details[0]).toMatchObject({ assignedTo: mo.userId, status: 'name_matched' });
    // Bo renames herself "J Smith" in her profile: the next import still gives the lines to Mo.
    await api.http.put('/api/auth/profile').set(inCompany(bo)).send({ firstName: 'J', lastName: 'Smith' }).expect(200);
    const next = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(line(2)), 'card-2.csv').expect(200);
    expect(next.body.userMatching.details[0]).toMatchObject({ assignedTo: mo.userId, status: 'name_matched' });
    expect((await transactions(bo)).some((t) => t.description.startsWith('CARD LINE'))).toBe(false);
  });

  it('only an admin sets statement names, for a member of the company; the names are checked', async () => {
    const path = `/api/companies/current/users/${bo.userId}/statement-names`;
    expect((await api.http.put(path).set(inCompany(bo)).send({ names: ['J Smith'] })).status).toBe(403);
    expect((await api.http.put(path).set(inCompany(mo)).send({ names: ['J Smith'] })).status).toBe(403);
    expect((await api.http.put(path).set(ada.headers()).send({ names: ['x'.repeat(101)] })).status).toBe(400);
    const set = await api.http.put(path).set(ada.headers()).send({ names: [' Bo  Plain ', 'bo plain', ''] });
    expect(set.status).toBe(200);
    expect(set.body.statementNames).toEqual(['Bo Plain']);
  });
});
