/**
 * The learning AI calls over HTTP: categorisation with feedback and
 * stats, duplicate checks / groups / batch for transactions and receipts, recurring patterns,
 * and scope (a plain user acts on their own records only). Lines are invented here.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptReading } from '../../infra/src/receipts/ocr-job';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { png } from '../support/images';

/** Receipt files read as fixed fields (keyed by the file's hash): no OCR engine needed. */
const readings = new Map<string, ReceiptReading['fields']>();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const reader = {
  async read(bytes: Buffer): Promise<ReceiptReading> {
    const fields = readings.get(sha(bytes)) ?? { date: null, totalCents: null, merchant: null, taxCents: null, description: null };
    return { source: 'ocr', text: `${fields.merchant ?? ''}\n${fields.date ?? ''}`, fields, confidence: { date: 0.9, totalCents: 0.9, merchant: 0.8 }, ocrConfidence: 90, ms: 1 };
  },
};

const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const ben = (date: string, description: string, amount: string, category = '') => `${date},${description},${amount},${category},${category ? 'J-1' : ''},${category ? 'C-1' : ''},Ben,Baker`;
const cy = (date: string, description: string, amount: string, category = '') => `${date},${description},${amount},${category},${category ? 'J-1' : ''},${category ? 'C-1' : ''},Cy,Cole`;
const CSV = [
  HEADER,
  // Ben's categorised history.
  ben('2025-01-03', 'SHELL OIL 2231', '-48.20', 'Fuel'), ben('2025-01-17', 'SHELL OIL 2231', '-55.90', 'Fuel'), ben('2025-02-06', 'SHELL OIL 2231', '-61.35', 'Fuel'),
  ben('2025-02-21', 'SHELL OIL 2231', '-44.10', 'Fuel'), ben('2025-01-09', 'CHEVRON 0412', '-71.00', 'Fuel'), ben('2025-02-12', 'CHEVRON 0412', '-66.45', 'Fuel'),
  ben('2025-01-05', 'PANERA BREAD #22', '-18.40', 'Meals'), ben('2025-01-26', 'PANERA BREAD #22', '-22.75', 'Meals'), ben('2025-02-16', 'TST* BLUE DOOR GRILL', '-41.30', 'Meals'),
  ben('2025-01-13', 'OFFICE DEPOT 771', '-88.12', 'Office Supplies'), ben('2025-02-02', 'OFFICE DEPOT 771', '-35.60', 'Office Supplies'), ben('2025-02-25', 'OFFICE DEPOT 771', '-120.00', 'Office Supplies'),
  ben('2025-01-10', 'VERIZON WRLS 8811', '-125.00', 'Telecom'), ben('2025-02-10', 'VERIZON WRLS 8811', '-125.00', 'Telecom'), ben('2025-03-11', 'VERIZON WRLS 8811', '-125.00', 'Telecom'),
  ben('2025-04-10', 'VERIZON WRLS 8811', '-127.40', 'Telecom'), ben('2025-02-27', 'ACME HOLDINGS 5', '-30.00', 'Office Supplies'),
  // Ben's uncategorised lines.
  ben('2025-05-01', 'SHELL OIL 2231', '-52.10'), ben('2025-05-02', 'MOBIL 7781', '-63.25'), ben('2025-05-03', 'ACME HOLDINGS 5', '-27.50'),
  ben('2025-05-05', 'HOME DEPOT #4410', '-230.15'), ben('2025-05-07', 'HOME DEPOT #4410 PENDING', '-230.15'),
  ben('2025-05-01', 'STARBUCKS 3321', '-6.45'), ben('2025-05-09', 'STARBUCKS 3321', '-6.45'),
  // Cy's lines.
  cy('2025-05-02', 'ZQX 7781 KLMV', '-18.75'),
  cy('2025-05-03', 'UPS STORE 0042', '-18.20'), cy('2025-05-04', 'UPS STORE 0042 PENDING', '-18.20'), cy('2025-05-06', 'CHEVRON 0412', '-59.99'),
].join('\n');

let api: Api;
let fake: FakeAnthropic;
let ada: Account;
let benAcc: Account;
let cyAcc: Account;
let outsider: Account;
const cat = new Map<string, string>();
const tx = new Map<string, string>();
const txKey = (date: string, description: string) => `${date}|${description}`;

const as = (who: Account) => who.headers(ada.companyId);
const post = (who: Account, path: string, body: object = {}) => api.http.post(`/api${path}`).set(as(who)).send(body);
const get = (who: Account, path: string) => api.http.get(`/api${path}`).set(as(who));

beforeAll(async () => {
  // A hosted model behind a local server in the Messages API's shape: failing unless a test scripts it.
  fake = await startFakeAnthropic();
  fake.script('claude-sonnet-4-5', { kind: 'status', status: 500 });
  fake.script('claude-haiku-4-5', { kind: 'status', status: 500 });
  api = await startApi({ ANTHROPIC_API_KEY: 'sk-ant-test-ai-learning-0000', ANTHROPIC_BASE_URL: fake.url, LLM_TIMEOUT_MS: '500', LLM_MAX_RETRIES: '0' }, undefined, { reader });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  benAcc = await registerAccount(api, { firstName: 'Ben', lastName: 'Baker' });
  cyAcc = await registerAccount(api, { firstName: 'Cy', lastName: 'Cole' });
  outsider = await registerAccount(api, { firstName: 'Otto', lastName: 'Out' });
  await invite(api, ada, benAcc);
  await invite(api, ada, cyAcc);
  for (const name of ['Fuel', 'Meals', 'Office Supplies', 'Telecom', 'Materials', 'Shipping']) {
    const res = await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name }).expect(201);
    cat.set(name, String(res.body.id ?? res.body.item?.id));
  }
  const imported = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(CSV), 'ledger.csv');
  expect(imported.status).toBe(200);
  const list = await api.http.get('/api/transactions').query({ limit: '500' }).set(ada.headers()).expect(200);
  for (const t of list.body.transactions as Array<Record<string, unknown>>) tx.set(txKey(String(t.transaction_date), String(t.description)), String(t.id));
  expect(tx.size).toBe(CSV.split('\n').length - 1);
}, 60_000);
afterAll(async () => {
  await api.close();
  await fake.close();
});

const id = (date: string, description: string) => {
  const v = tx.get(txKey(date, description));
  if (!v) throw new Error(`no transaction ${date} ${description}`);
  return v;
};

describe('categorisation', () => {
  it('answers a seen merchant from the payee memory with a calibrated high confidence and the category id', async () => {
    const res = await post(benAcc, `/ai/categorize/transaction/${id('2025-05-01', 'SHELL OIL 2231')}`).expect(200);
    expect(res.body).toMatchObject({ predictedCategory: 'Fuel', predictedCategoryId: cat.get('Fuel') });
    expect(res.body.confidence).toBeGreaterThan(0.7);
    expect(res.body.confidence).toBeLessThanOrEqual(1);
    expect(res.body.details).toMatchObject({ source: 'memory', merchantKey: 'SHELL OIL' });
  });

  it('answers a merchant the company never met from the linear model (a fuel brand lands in Fuel)', async () => {
    const res = await post(benAcc, `/ai/categorize/transaction/${id('2025-05-02', 'MOBIL 7781')}`).expect(200);
    expect(res.body.predictedCategory).toBe('Fuel');
    expect(res.body.details.source).toBe('model');
    expect(res.body.details.alternatives.length).toBeGreaterThan(0);
  });

  it('feedback is an event that changes the next prediction, and stats count predictions and feedback accuracy', async () => {
    const acme = id('2025-05-03', 'ACME HOLDINGS 5');
    const first = await post(benAcc, `/ai/categorize/transaction/${acme}`).expect(200);
    expect(first.body.predictedCategory).toBe('Office Supplies');
    const before = (await get(ada, '/ai/categorize/stats').expect(200)).body;
    await post(benAcc, '/ai/categorize/feedback', { transactionId: acme, predictedCategoryId: first.body.predictedCategoryId, actualCategoryId: cat.get('Meals'), confidence: first.body.confidence }).expect(200);
    const second = await post(benAcc, `/ai/categorize/transaction/${acme}`).expect(200);
    expect(second.body.predictedCategory).toBe('Meals');
    expect(second.body.predictedCategoryId).toBe(cat.get('Meals'));
    // A "Yes" on another prediction: accuracy is computed from the answers (1 of 2), not a constant.
    const shell = id('2025-05-01', 'SHELL OIL 2231');
    await post(benAcc, '/ai/categorize/feedback', { transactionId: shell, predictedCategoryId: cat.get('Fuel'), actualCategoryId: cat.get('Fuel'), confidence: 0.9 }).expect(200);
    const after = (await get(ada, '/ai/categorize/stats').expect(200)).body;
    expect(after.total_predictions).toBe(before.total_predictions + 1);
    expect(after.feedback_count).toBe(before.feedback_count + 2);
    expect(after.accuracy).toBeCloseTo((before.feedback_count * (before.accuracy ?? 0) + 1) / (before.feedback_count + 2), 3);
    const dash = (await get(ada, '/ai/dashboard/stats').expect(200)).body;
    expect(dash.categorization.total_predictions).toBe(after.total_predictions);
  });

  it("asks the chosen language model when the company's own answer is unsure, constrained to the company's categories", async () => {
    const odd = id('2025-05-02', 'ZQX 7781 KLMV');
    const own = await post(cyAcc, `/ai/categorize/transaction/${odd}`).expect(200);
    expect(own.body.details.source).not.toBe('language-model');
    expect(own.body.confidence).toBeLessThan(0.7);
    fake.script('claude-sonnet-4-5', { kind: 'answer', category: 'Shipping', confidence: 0.91 });
    const asked = await post(cyAcc, `/ai/categorize/transaction/${odd}`).expect(200);
    fake.script('claude-sonnet-4-5', { kind: 'status', status: 500 });
    expect(asked.body).toMatchObject({ predictedCategory: 'Shipping', predictedCategoryId: cat.get('Shipping'), confidence: 0.91, details: { source: 'language-model', model: 'claude-sonnet-4-5' } });
    const request = fake.seen.filter((r) => r.model === 'claude-sonnet-4-5' && r.body).at(-1);
    expect(JSON.stringify(request?.body)).toContain('Office Supplies');
  });

  it('refuses an unknown category in feedback', async () => {
    const res = await post(benAcc, '/ai/categorize/feedback', { transactionId: id('2025-05-01', 'SHELL OIL 2231'), actualCategoryId: 'no-such-category' });
    expect(res.status).toBe(400);
  });
});

describe('scope', () => {
  it("a plain user cannot categorise, check, detect or give feedback on another member's transaction", async () => {
    const bens = id('2025-05-05', 'HOME DEPOT #4410');
    expect((await post(cyAcc, `/ai/categorize/transaction/${bens}`)).status).toBe(404);
    expect((await post(cyAcc, `/ai/duplicates/check/${bens}`)).status).toBe(404);
    expect((await post(cyAcc, `/ai/recurring/detect/${id('2025-04-10', 'VERIZON WRLS 8811')}`)).status).toBe(404);
    expect((await post(cyAcc, '/ai/categorize/feedback', { transactionId: bens, actualCategoryId: cat.get('Materials') })).status).toBe(404);
  });

  it("a plain user's stats count their own predictions and feedback, an admin's the company's", async () => {
    const cys = (await get(cyAcc, '/ai/categorize/stats').expect(200)).body;
    const bens = (await get(benAcc, '/ai/categorize/stats').expect(200)).body;
    const all = (await get(ada, '/ai/categorize/stats').expect(200)).body;
    expect(cys).toMatchObject({ total_predictions: 2, feedback_count: 0, accuracy: null });
    expect(bens.feedback_count).toBe(2);
    expect(all.total_predictions).toBe(cys.total_predictions + bens.total_predictions);
  });

  it('another company cannot reach these records at all', async () => {
    const res = await api.http.post(`/api/ai/categorize/transaction/${id('2025-05-01', 'SHELL OIL 2231')}`).set(outsider.headers(ada.companyId));
    expect(res.status).toBe(403);
    const own = await api.http.post(`/api/ai/categorize/transaction/${id('2025-05-01', 'SHELL OIL 2231')}`).set(outsider.headers());
    expect(own.status).toBe(404);
  });
});

describe('duplicates', () => {
  let bensGroup = '';

  it('finds the pending and posted forms of one charge, not a look-alike a week later', async () => {
    const res = await post(benAcc, `/ai/duplicates/check/${id('2025-05-05', 'HOME DEPOT #4410')}`).expect(200);
    expect(res.body.duplicateAnalysis.isDuplicate).toBe(true);
    expect(res.body.duplicateAnalysis.duplicates.map((d: { id: string }) => d.id)).toEqual([id('2025-05-07', 'HOME DEPOT #4410 PENDING')]);
    expect(res.body.duplicateAnalysis.confidence).toBeGreaterThan(0.8);
    bensGroup = res.body.duplicateAnalysis.groupId;
    const lookAlike = await post(benAcc, `/ai/duplicates/check/${id('2025-05-01', 'STARBUCKS 3321')}`).expect(200);
    expect(lookAlike.body.duplicateAnalysis.isDuplicate).toBe(false);
  });

  it('groups are scoped: a user sees and resolves their own, an admin the company', async () => {
    await post(cyAcc, `/ai/duplicates/check/${id('2025-05-03', 'UPS STORE 0042')}`).expect(200);
    const benGroups = (await get(benAcc, '/ai/duplicates/groups').expect(200)).body.groups as Array<{ id: string; status: string; duplicate_count: number; confidence_score: number }>;
    const cyGroups = (await get(cyAcc, '/ai/duplicates/groups').expect(200)).body.groups as Array<{ id: string }>;
    const all = (await get(ada, '/ai/duplicates/groups').expect(200)).body.groups as Array<{ id: string }>;
    expect(benGroups.map((g) => g.id)).toEqual([bensGroup]);
    expect(benGroups[0]).toMatchObject({ status: 'pending', duplicate_count: 2 });
    expect(cyGroups).toHaveLength(1);
    expect(all.map((g) => g.id).sort()).toEqual([bensGroup, cyGroups[0]!.id].sort());
    expect((await api.http.put(`/api/ai/duplicates/groups/${bensGroup}`).set(as(cyAcc)).send({ status: 'dismissed' })).status).toBe(404);
    const confirmed = await api.http.put(`/api/ai/duplicates/groups/${cyGroups[0]!.id}`).set(as(cyAcc)).send({ status: 'confirmed' }).expect(200);
    expect(confirmed.body.group.status).toBe('confirmed');
    expect((await api.http.put(`/api/ai/duplicates/groups/${cyGroups[0]!.id}`).set(as(cyAcc)).send({ status: 'dismissed' })).status).toBe(409);
    expect((await api.http.put(`/api/ai/duplicates/groups/${bensGroup}`).set(as(benAcc)).send({ status: 'maybe' })).status).toBe(400);
    const dash = (await get(ada, '/ai/dashboard/stats').expect(200)).body;
    expect(dash.duplicates).toMatchObject({ total_groups: 2, prevented_duplicates: 1 });
  });

  it('a dismissed pair is never raised again, by the check or by the batch', async () => {
    await api.http.put(`/api/ai/duplicates/groups/${bensGroup}`).set(as(benAcc)).send({ status: 'dismissed' }).expect(200);
    const again = await post(benAcc, `/ai/duplicates/check/${id('2025-05-05', 'HOME DEPOT #4410')}`).expect(200);
    expect(again.body.duplicateAnalysis.isDuplicate).toBe(false);
    const batch = await post(ada, '/ai/duplicates/batch', { limit: 100 }).expect(200);
    expect(batch.body.results.processed).toBe(tx.size);
    expect(batch.body.results.duplicatesFound).toBe(1); // Cy's (confirmed) pair; Ben's dismissed one is gone
    expect(batch.body.results.newGroups).toBe(0);
    const small = await post(benAcc, '/ai/duplicates/batch', { limit: 3 }).expect(200);
    expect(small.body.results.processed).toBe(3);
    expect((await post(ada, '/ai/duplicates/batch', { limit: 101 })).status).toBe(400);
  });

  it('the same receipt photographed twice is a duplicate; another member cannot check it', async () => {
    const first = png(40, 30, { seed: 11 });
    const second = png(40, 30, { seed: 12 });
    for (const b of [first, second]) readings.set(sha(b), { date: '2025-05-06', totalCents: 4312, merchant: 'BLUE DOOR GRILL', taxCents: null, description: null });
    const ids: string[] = [];
    for (const [i, b] of [first, second].entries()) {
      const up = await api.http.post('/api/receipts/upload').set(as(benAcc)).attach('receipt', b, `grill-${i}.png`);
      expect(up.status).toBe(201);
      ids.push(String(up.body.receipt?.id ?? up.body.id));
    }
    for (let i = 0; i < 100; i++) {
      const done = await Promise.all(ids.map(async (r) => (await get(benAcc, `/receipts/${r}`)).body));
      if (done.every((d) => (d.receipt ?? d).processing_status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await post(benAcc, `/ai/duplicates/check/${ids[1]}`).expect(200);
    expect(res.body.duplicateAnalysis).toMatchObject({ isDuplicate: true, kind: 'receipt' });
    expect(res.body.duplicateAnalysis.duplicates.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect((await post(cyAcc, `/ai/duplicates/check/${ids[0]}`)).status).toBe(404);
  });

  it('the duplicateDetection setting switches the check off', async () => {
    await api.http.put('/api/settings/duplicateDetection').set(ada.headers()).send({ value: false }).expect(200);
    expect((await post(benAcc, `/ai/duplicates/check/${id('2025-05-05', 'HOME DEPOT #4410')}`)).status).toBe(409);
    await api.http.put('/api/settings/duplicateDetection').set(ada.headers()).send({ value: true }).expect(200);
  });
});

describe('recurring', () => {
  it('detects the monthly series a transaction belongs to, with its next expected date', async () => {
    const res = await post(benAcc, `/ai/recurring/detect/${id('2025-04-10', 'VERIZON WRLS 8811')}`).expect(200);
    expect(res.body).toMatchObject({ hasPattern: true, frequency: 'monthly' });
    expect(res.body.pattern).toMatchObject({ occurrence_count: 4, last_match: '2025-04-10', next_expected_date: '2025-05-10', category_name: 'Telecom' });
    const none = await post(benAcc, `/ai/recurring/detect/${id('2025-05-01', 'STARBUCKS 3321')}`).expect(200);
    expect(none.body.hasPattern).toBe(false);
  });

  it("lists patterns in scope: Ben's series is his, not Cy's", async () => {
    const bens = (await get(benAcc, '/ai/matching/recurring/patterns').expect(200)).body.patterns as Array<{ description: string; frequency: string }>;
    expect(bens.map((p) => [p.description, p.frequency])).toEqual([['VERIZON WRLS 8811', 'monthly']]);
    const cys = (await get(cyAcc, '/ai/matching/recurring/patterns').expect(200)).body.patterns as unknown[];
    expect(cys).toEqual([]);
    const admins = (await get(ada, '/ai/matching/recurring/patterns').expect(200)).body.patterns as unknown[];
    expect(admins).toHaveLength(1);
  });

  it('the listing is kept until the company changes: the next line of the series is in the next listing', async () => {
    const verizon = async (who: Account) => ((await get(who, '/ai/matching/recurring/patterns').expect(200)).body.patterns as Array<{ description: string; occurrence_count: number }>).find((p) => p.description === 'VERIZON WRLS 8811');
    expect((await verizon(benAcc))?.occurrence_count).toBe(4);
    expect((await verizon(ada))?.occurrence_count).toBe(4);
    const more = [CSV.split('\n')[0], ben('2025-05-10', 'VERIZON WRLS 8811', '-125.00', 'Telecom')].join('\n');
    expect((await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(more), 'may.csv')).status).toBe(200);
    expect((await verizon(benAcc))?.occurrence_count).toBe(5);
    expect((await verizon(ada))?.occurrence_count).toBe(5);
    // The series of one line, from the same kept answer: the new line is in it.
    const list = await api.http.get('/api/transactions').query({ limit: '500' }).set(ada.headers()).expect(200);
    const may = (list.body.transactions as Array<{ id: string; transaction_date: string; description: string }>).find((t) => t.transaction_date === '2025-05-10' && t.description === 'VERIZON WRLS 8811')!;
    const detected = await post(benAcc, `/ai/recurring/detect/${may.id}`).expect(200);
    expect(detected.body).toMatchObject({ hasPattern: true, frequency: 'monthly' });
    expect(detected.body.pattern.occurrence_count).toBe(5);
    expect((await post(benAcc, `/ai/recurring/detect/${id('2025-05-01', 'STARBUCKS 3321')}`).expect(200)).body.hasPattern).toBe(false);
  });
});
