import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';

/**
 * The language-model calls through the whole server, with the real SDK talking to a local
 * server in the Messages API's shape (ANTHROPIC_BASE_URL): health, the connection test, the
 * model list, model choice, test categorisation with its fall to the fallback model, test OCR;
 * membership and roles; and the API key never in an answer, an event or a log line.
 */
const KEY = 'sk-ant-api03-LLMSETTINGS-never-show-this-0123456789';
let fake: FakeAnthropic;
let api: Api;
let ada: Account;
let bo: Account;
let eve: Account;
const answers: string[] = [];
const logged: string[] = [];
const categoryIds = new Map<string, string>();

/** Every answer's text is kept, to search for the key at the end. */
function keep<T extends { text: string }>(res: T): T {
  answers.push(res.text);
  return res;
}

beforeAll(async () => {
  for (const method of ['log', 'warn', 'error', 'info', 'debug'] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
      original(...args);
    });
  }
  fake = await startFakeAnthropic();
  api = await startApi({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, LLM_TIMEOUT_MS: '500', LLM_MAX_RETRIES: '1', LOG_REQUESTS: '1' }, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  eve = await registerAccount(api, { firstName: 'Eve', lastName: 'Outsider' });
  await invite(api, ada, bo, 'user');
  for (const name of ['Travel', 'Meals', 'Office Supplies']) {
    const res = await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name }).expect(201);
    categoryIds.set(name, res.body.id);
  }
  // categorised history, for the company's own offline categoriser (the chain's last resort)
  const history = [
    'Transaction Date,Description,Amount,Category',
    ...['DELTA AIR 1001', 'DELTA AIR 1002', 'DELTA AIR 1003', 'MARRIOTT DENVER 7', 'HILTON AUSTIN 9'].map((d, i) => `2025-01-0${i + 1},${d},-${300 + i}.00,Travel`),
    ...['CHIPOTLE 9128', 'CHIPOTLE 9130', 'PANERA BREAD 44', 'STARBUCKS 1200'].map((d, i) => `2025-02-0${i + 1},${d},-${12 + i}.50,Meals`),
  ].join('\n');
  await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(`${history}\n`), 'history.csv').expect(200);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await api?.close();
  await fake?.close();
});

describe('language-model API', () => {
  it('health: the chain and a connected API, for every member; a non-member is refused', async () => {
    const res = keep(await api.http.get('/api/ai/llm/health').set(bo.headers(ada.companyId)).expect(200));
    expect(res.body).toMatchObject({ status: 'ok', connected: true, keyConfigured: true, chain: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'offline-learned'], aiEnabled: true });
    expect((await api.http.get('/api/ai/llm/health').set(eve.headers(ada.companyId))).status).toBe(403);
  });

  it('lists the Models API models to admins and keeps the chosen ones to that list', async () => {
    const list = keep(await api.http.get('/api/settings/llm/available-models').set(ada.headers()).expect(200));
    expect(list.body.models.map((m: { name: string; source: string }) => [m.name, m.source])).toEqual([...fake.models.map((m) => [m, 'remote']), ['offline-learned', 'offline']]);
    expect((await api.http.get('/api/settings/llm/available-models').set(bo.headers(ada.companyId))).status).toBe(403);
    const refused = keep(await api.http.put('/api/settings/llm/model').set(ada.headers()).send({ model: 'claude-made-up' }));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('unknown_model');
    keep(await api.http.put('/api/settings/llm/model').set(ada.headers()).send({ model: 'claude-primary-test' }).expect(200));
    keep(await api.http.put('/api/settings/llm/fallback-model').set(ada.headers()).send({ model: 'claude-fallback-test' }).expect(200));
    const test = keep(await api.http.post('/api/settings/llm/test').set(ada.headers()).expect(200));
    expect(test.body).toMatchObject({ connected: true, model: 'claude-primary-test', fallbackModel: 'claude-fallback-test', chain: ['claude-primary-test', 'claude-fallback-test', 'offline-learned'] });
  });

  it("test categorisation: the company's categories as the only answers, the fallback model when the primary is overloaded", async () => {
    fake.script('claude-primary-test', { kind: 'status', status: 529 });
    fake.script('claude-fallback-test', { kind: 'answer', category: 'Travel', confidence: 0.88 });
    const since = fake.seen.length;
    const res = keep(await api.http.post('/api/ai/llm/test-categorization').set(bo.headers(ada.companyId)).send({ description: 'UNITED AIRLINES 016', amount: -389.4, companyId: ada.companyId }).expect(200));
    expect(res.body).toMatchObject({ predictedCategory: 'Travel', predictedCategoryId: categoryIds.get('Travel'), confidence: 0.88, model: 'claude-fallback-test', source: 'remote' });
    expect(res.body.attempts.map((a: { model: string; outcome: string }) => [a.model, a.outcome])).toEqual([['claude-primary-test', 'failed'], ['claude-fallback-test', 'answered']]);
    const sent = fake.seen.slice(since).filter((r) => r.path === '/v1/messages');
    expect(sent.map((r) => r.model)).toEqual(['claude-primary-test', 'claude-primary-test', 'claude-fallback-test']);
    const tool = (sent[0]!.body!.tools as Array<{ input_schema: { properties: { category: { enum: string[] } } } }>)[0]!;
    expect(tool.input_schema.properties.category.enum.sort()).toEqual(['Meals', 'Office Supplies', 'Travel', 'none']);
  });

  it("when both hosted models fail, the company's own offline categoriser answers from its history", async () => {
    fake.script('claude-primary-test', { kind: 'status', status: 500 });
    fake.script('claude-fallback-test', { kind: 'hang' });
    const res = keep(await api.http.post('/api/ai/llm/test-categorization').set(ada.headers()).send({ description: 'DELTA AIR 1007', amount: -310 }).expect(200));
    expect(res.body).toMatchObject({ predictedCategory: 'Travel', predictedCategoryId: categoryIds.get('Travel'), model: 'offline-learned', source: 'offline' });
    expect(res.body.confidence).toBeGreaterThan(0);
    expect(res.body.attempts.map((a: { model: string; reason?: string }) => [a.model, a.reason])).toEqual([['claude-primary-test', 'http 500'], ['claude-fallback-test', 'timeout'], ['offline-learned', undefined]]);
  });

  it('checks membership and the AI switch', async () => {
    const body = { description: 'UBER TRIP', amount: -12 };
    expect((await api.http.post('/api/ai/llm/test-categorization').set(eve.headers(ada.companyId)).send(body)).status).toBe(403);
    expect((await api.http.post('/api/ai/llm/test-categorization').set(bo.headers(ada.companyId)).send({ ...body, companyId: eve.companyId })).status).toBe(403);
    expect((await api.http.post('/api/ai/llm/test-categorization').set(ada.headers()).send({ amount: 1 })).status).toBe(400);
    await api.http.put('/api/settings/aiEnabled').set(ada.headers()).send({ value: false }).expect(200);
    const off = await api.http.post('/api/ai/llm/test-categorization').set(bo.headers(ada.companyId)).send(body);
    expect(off.status).toBe(409);
    expect(off.body.code).toBe('ai_disabled');
    await api.http.put('/api/settings/aiEnabled').set(ada.headers()).send({ value: true }).expect(200);
  });

  it('test OCR reads a file as receipts are read and stores nothing; the company limit applies', async () => {
    const l = labels[0]!;
    const image = imageOf(l.id);
    const head = await api.paperlink.adapters.events.headPosition();
    const res = keep(await api.http.post('/api/ai/llm/test-ocr').set(bo.headers(ada.companyId)).attach('receipt', image, 'lunch.jpg').expect(200));
    expect(res.body.ocrText).toContain(l.merchant);
    expect(res.body.receiptData).toEqual({ filename: 'lunch.jpg', fileSize: image.length, fileType: 'image/jpeg' });
    expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
    expect((await api.http.post('/api/ai/llm/test-ocr').set(ada.headers()).attach('receipt', Buffer.from('plain text, not a receipt'), 'a.txt')).status).toBe(415);
    expect((await api.http.post('/api/ai/llm/test-ocr').set(ada.headers())).status).toBe(400);
    expect((await api.http.post('/api/ai/llm/test-ocr').set(eve.headers(ada.companyId)).attach('receipt', image, 'x.jpg')).status).toBe(403);
    await api.http.put('/api/settings/maxFileSize').set(ada.headers()).send({ value: 2048 }).expect(200);
    expect((await api.http.post('/api/ai/llm/test-ocr').set(ada.headers()).attach('receipt', image, 'big.jpg')).status).toBe(413);
  });

  it('the API key is in no answer, no event and no log line, and in no file of the data folder', async () => {
    expect(fake.seen.every((r) => r.apiKey === KEY)).toBe(true); // it did reach the API
    for (const text of answers) expect(text).not.toContain(KEY);
    for (const line of logged) expect(line).not.toContain(KEY);
    const head = await api.paperlink.adapters.events.headPosition();
    const events = await api.paperlink.adapters.events.readAll({ after: 0, maxCount: head + 1 });
    expect(events.length).toBeGreaterThan(10);
    expect(JSON.stringify(events)).not.toContain(KEY);
    await api.paperlink.adapters.readStore.flush();
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(api.dataDir);
    expect(files.some((f) => /events/.test(f))).toBe(true);
    const needle = Buffer.from(KEY);
    for (const f of files) expect(readFileSync(f).includes(needle), f).toBe(false);
    // and the key's tail, in case something kept part of it
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(KEY.slice(-16))), f).toBe(false);
  });
});
