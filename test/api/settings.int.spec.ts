import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, settle, startApi, type Account, type Api } from '../support/harness';
import { BANK_CSV, imageOf, labelledReader, labels } from '../support/labelled-reader';

/**
 * Settings (spec section 7): every member reads them, only admins change them (403 otherwise),
 * values are validated, each change is an event, and two of them really steer the product:
 * autoMatchThreshold the auto-match runs, maxFileSize the receipt uploads.
 */
let api: Api;
let ada: Account; // admin of her company
let bo: Account; // a user in Ada's company
let eve: Account; // not a member

interface Truth {
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}
const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;

const quiet = () => settle(api, { maxMs: 15_000 }).catch(() => undefined);

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  eve = await registerAccount(api, { firstName: 'Eve', lastName: 'Outsider' });
  await invite(api, ada, bo, 'user');
});
afterAll(() => api?.close());

const put = (who: Account, key: string, body: unknown, headers: Record<string, string> = {}) =>
  api.http.put(`/api/settings/${key}`).set({ ...who.headers(ada.companyId), ...headers }).send(body as object);

describe('settings API', () => {
  it('answers the defaults of section 9 to every member; a non-member is refused', async () => {
    const res = await api.http.get('/api/settings').set(bo.headers(ada.companyId)).expect(200);
    expect(res.body.settings).toMatchObject({
      autoMatchThreshold: { value: 75, isDefault: true },
      maxFileSize: { value: 10 * 1024 * 1024 },
      aiEnabled: { value: true },
      autoCategorization: { value: true },
      duplicateDetection: { value: true },
      dateOrder: { value: 'auto', isDefault: true },
    });
    for (const s of Object.values(res.body.settings as Record<string, { description: string }>)) expect(s.description.length).toBeGreaterThan(5);
    expect(res.body.llm).toEqual({ model: 'claude-sonnet-4-5', fallbackModel: 'claude-haiku-4-5' });
    expect((await api.http.get('/api/settings/aiEnabled').set(bo.headers(ada.companyId)).expect(200)).body).toMatchObject({ key: 'aiEnabled', value: true });
    expect((await api.http.get('/api/settings/llm/model').set(bo.headers(ada.companyId)).expect(200)).body).toEqual({ model: 'claude-sonnet-4-5' });
    expect((await api.http.get('/api/settings').set(eve.headers(ada.companyId))).status).toBe(403);
    expect((await api.http.get('/api/settings/nope').set(ada.headers())).status).toBe(404);
  });

  it('lets only admins write; a user gets 403 on every write', async () => {
    expect((await put(bo, 'aiEnabled', { value: false })).status).toBe(403);
    expect((await api.http.put('/api/settings/llm/model').set(bo.headers(ada.companyId)).send({ model: 'claude-x' })).status).toBe(403);
    expect((await api.http.put('/api/settings/llm/fallback-model').set(bo.headers(ada.companyId)).send({ model: 'claude-x' })).status).toBe(403);
    expect((await api.http.post('/api/settings/llm/test').set(bo.headers(ada.companyId))).status).toBe(403);
    expect((await api.http.get('/api/settings/llm/available-models').set(bo.headers(ada.companyId))).status).toBe(403);
    expect((await put(eve, 'aiEnabled', { value: false })).status).toBe(403);
    expect((await api.http.get('/api/settings/aiEnabled').set(ada.headers())).body.value).toBe(true);
  });

  it('validates: threshold 0-100, file size within the server maximum, flags true/false, known keys', async () => {
    for (const value of [101, -1, 'abc', true, null]) expect((await put(ada, 'autoMatchThreshold', { value })).status, String(value)).toBe(400);
    for (const value of [50 * 1024 * 1024, 10 * 1024 * 1024 + 1, 12.5, 0]) expect((await put(ada, 'maxFileSize', { value })).status, String(value)).toBe(400);
    for (const value of ['yes', 1, null]) expect((await put(ada, 'duplicateDetection', { value })).status, String(value)).toBe(400);
    for (const value of ['dmy', 'en-US', 1, null]) expect((await put(ada, 'dateOrder', { value })).status, String(value)).toBe(400);
    expect((await put(ada, 'dateOrder', { value: ' Month-First ' }).expect(200)).body).toMatchObject({ key: 'dateOrder', value: 'month-first', changed: true });
    expect((await put(ada, 'dateOrder', { value: 'auto' }).expect(200)).body.value).toBe('auto');
    expect((await put(ada, 'noSuchSetting', { value: 1 })).status).toBe(404);
    expect((await put(ada, 'aiEnabled', { value: true, description: 'x'.repeat(501) })).status).toBe(400);
    expect((await api.http.put('/api/settings/llm/model').set(ada.headers()).send({ model: '' })).status).toBe(400);
    expect((await api.http.put('/api/settings/llm/model').set(ada.headers()).send({ model: 'bad model name!' })).status).toBe(400);
  });

  it('records a change as an event, shows it to members, and a retry with the same request id appends nothing', async () => {
    const before = await api.paperlink.adapters.events.headPosition();
    const res = await put(ada, 'duplicateDetection', { value: false, description: 'Off while we clean up' }, { 'x-request-id': 'settings-retry-1' }).expect(200);
    expect(res.body).toMatchObject({ key: 'duplicateDetection', value: false, description: 'Off while we clean up', changed: true });
    const head = await api.paperlink.adapters.events.headPosition();
    await put(ada, 'duplicateDetection', { value: false, description: 'Off while we clean up' }, { 'x-request-id': 'settings-retry-1' }).expect(200);
    expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
    const stream = await api.paperlink.adapters.events.readStream(`settings-${ada.companyId}`);
    const last = stream.at(-1)!;
    expect(last.position).toBeGreaterThan(before);
    expect(last).toMatchObject({ type: 'CompanySettingChanged', data: { companyId: ada.companyId, key: 'duplicateDetection', value: false, description: 'Off while we clean up' }, metadata: { userId: ada.userId } });
    // the same value again changes nothing
    expect((await put(ada, 'duplicateDetection', { value: 'false' }).expect(200)).body.changed).toBe(false);
    const seen = (await api.http.get('/api/settings').set(bo.headers(ada.companyId)).expect(200)).body.settings.duplicateDetection;
    expect(seen).toMatchObject({ value: false, description: 'Off while we clean up', isDefault: false });
    // another company keeps its defaults
    expect((await api.http.get('/api/settings/duplicateDetection').set(eve.headers())).body.value).toBe(true);
    const models = await api.http.put('/api/settings/llm/fallback-model').set(ada.headers()).send({ model: null }).expect(200);
    expect(models.body.model).toBeNull();
    await api.http.put('/api/settings/llm/model').set(ada.headers()).send({ model: 'claude-opus-4-1' }).expect(200);
    expect((await api.http.get('/api/settings/llm/fallback-model').set(ada.headers())).body).toEqual({ model: null });
    expect((await api.http.get('/api/settings/llm/model').set(ada.headers())).body).toEqual({ model: 'claude-opus-4-1' });
    // no key on this server: the connection test says so, and the list holds no hosted model
    expect((await api.http.post('/api/settings/llm/test').set(ada.headers()).expect(200)).body).toMatchObject({ connected: false, keyConfigured: false });
    expect((await api.http.get('/api/settings/llm/available-models').set(ada.headers()).expect(200)).body.models.filter((m: { source: string }) => m.source === 'remote')).toEqual([]);
  });

  it('maxFileSize limits receipt uploads (multipart and presigned) for that company only', async () => {
    const image = imageOf(labels[0]!.id);
    const limit = Math.floor(image.length / 2);
    await put(ada, 'maxFileSize', { value: limit }).expect(200);
    const refused = await api.http.post('/api/receipts/upload').set(bo.headers(ada.companyId)).attach('receipt', image, 'big.jpg');
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatch(/limit/);
    expect((await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'big.jpg', contentType: 'image/jpeg', size: image.length })).status).toBe(413);
    // Eve's company keeps the server's own limit
    expect((await api.http.post('/api/receipts/upload').set(eve.headers()).attach('receipt', image, 'fine.jpg')).status).toBe(201);
    await put(ada, 'maxFileSize', { value: image.length }).expect(200);
    expect((await api.http.post('/api/receipts/upload').set(bo.headers(ada.companyId)).attach('receipt', image, 'fits.jpg')).status).toBe(201);
  });

  it('autoMatchThreshold drives the auto-match run after new evidence, and the call without a threshold', async () => {
    const cy = await registerAccount(api, { firstName: 'Cy', lastName: 'Matcher' });
    const l = labels.find((x) => truth.receipt_to_transaction[x.id])!;
    await api.http.put('/api/settings/autoMatchThreshold').set(cy.headers()).send({ value: 100 }).expect(200);
    const receiptId = (await api.http.post('/api/receipts/upload').set(cy.headers()).attach('receipt', imageOf(l.id), 'r.jpg').expect(201)).body.receipt.id as string;
    await quiet();
    await api.http.post('/api/transactions/import').set(cy.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv').expect(200);
    await quiet();
    // the job ran after the statement arrived, at the company's 100: nothing was good enough
    expect((await api.http.get('/api/matches/pending').set(cy.headers())).body).toEqual([]);
    const strict = await api.http.post('/api/matches/auto-match').set(cy.headers()).send({}).expect(200);
    expect(strict.body).toMatchObject({ threshold: 100, matched: 0 });
    await api.http.put('/api/settings/autoMatchThreshold').set(cy.headers()).send({ value: 60 }).expect(200);
    // new evidence (a corrected receipt) starts the job again, now at 60: it suggests the pair by itself
    await api.http.put(`/api/receipts/${receiptId}`).set(cy.headers()).send({ extracted_description: 'Client visit' }).expect(200);
    await quiet();
    expect(((await api.http.get('/api/matches/pending').set(cy.headers())).body as unknown[]).length).toBe(1);
    const run = await api.http.post('/api/matches/auto-match').set(cy.headers()).send({}).expect(200);
    expect(run.body).toMatchObject({ threshold: 60 });
    const rows = (await api.http.get('/api/matches/pending').set(cy.headers())).body as Array<{ description: string; match_confidence: number }>;
    expect(rows.map((r) => r.description)).toEqual([truth.receipt_to_transaction[l.id]!.description]);
    expect(rows[0]!.match_confidence).toBeLessThan(100);
    // a threshold in the call still wins over the setting
    expect((await api.http.post('/api/matches/auto-match').set(cy.headers()).send({ threshold: 100 }).expect(200)).body.threshold).toBe(100);
  });
});
