import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OfflineCategorizer } from '@paperlink/domain';
import { startFakeAnthropic, type FakeAnthropic } from '../../../test/support/fake-anthropic';
import { ModelChain, NO_MODEL } from './chain';

/**
 * The real @anthropic-ai/sdk against a local server in the Messages API's shape: answers,
 * 500s, 529s, time-outs and malformed answers, so retries and the fall from the primary to the
 * fallback to the offline model (or to "no model") are shown, with no network.
 */
const KEY = 'sk-ant-test-0123456789abcdef-secret';
const categories = ['Travel', 'Meals', 'Office Supplies'];
const input = { description: 'DELTA AIR 0062 ATLANTA', amount: -412.2, categories };
const models = { primary: 'claude-primary-test', fallback: 'claude-fallback-test' };

let fake: FakeAnthropic;
const chain = (extra: Partial<ConstructorParameters<typeof ModelChain>[0]> = {}) =>
  new ModelChain({ apiKey: KEY, baseURL: fake.url, timeoutMs: 300, maxRetries: 2, defaults: { primary: models.primary, fallback: models.fallback }, ...extra });
const offline: OfflineCategorizer = {
  name: 'offline-test',
  async categorize(i) {
    return /air|hotel/i.test(i.description) ? { category: 'Travel', confidence: 0.66 } : null;
  },
};
const messagesTo = (model: string, since: number) => fake.seen.slice(since).filter((r) => r.path === '/v1/messages' && r.model === model).length;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => fake.close());

describe('language-model chain through the real SDK', () => {
  it('asks the primary with a tool whose enum is the categories plus none, and returns its answer', async () => {
    fake.script(models.primary, { kind: 'answer', category: 'Travel', confidence: 0.93 });
    const since = fake.seen.length;
    const r = await chain().categorize(input, { models });
    expect(r).toMatchObject({ category: 'Travel', confidence: 0.93, model: models.primary, source: 'remote' });
    const req = fake.seen[since]!;
    expect(req.apiKey).toBe(KEY);
    const tools = req.body!.tools as Array<{ name: string; input_schema: { properties: { category: { enum: string[] } } } }>;
    expect(tools[0]!.input_schema.properties.category.enum).toEqual([...categories, 'none']);
    expect(req.body!.tool_choice).toMatchObject({ type: 'tool', name: 'record_category' });
    expect(JSON.stringify(req.body!.messages)).toContain('DELTA AIR 0062 ATLANTA');
  });

  it('retries a 500 and a 529 on the same model, then answers', async () => {
    fake.script(models.primary, { kind: 'status', status: 500 }, { kind: 'status', status: 529 }, { kind: 'answer', category: 'Meals', confidence: 0.8 });
    const since = fake.seen.length;
    const r = await chain().categorize({ ...input, description: 'CHIPOTLE 1234' }, { models });
    expect(r).toMatchObject({ category: 'Meals', model: models.primary, source: 'remote' });
    expect(messagesTo(models.primary, since)).toBe(3);
    expect(messagesTo(models.fallback, since)).toBe(0);
  });

  it('falls to the fallback model when the primary keeps failing (529 after every retry)', async () => {
    fake.script(models.primary, { kind: 'status', status: 529 });
    fake.script(models.fallback, { kind: 'answer', category: 'Office Supplies', confidence: 0.71 });
    const since = fake.seen.length;
    const r = await chain().categorize({ ...input, description: 'STAPLES 0042' }, { models });
    expect(r).toMatchObject({ category: 'Office Supplies', model: models.fallback, source: 'remote' });
    expect(messagesTo(models.primary, since)).toBe(3); // the first attempt and two retries
    expect(r.attempts.map((a) => [a.model, a.outcome, a.reason])).toEqual([[models.primary, 'failed', 'http 529 (overloaded)'], [models.fallback, 'answered', undefined]]);
  });

  it('a time-out is retried, then falls through; a malformed answer fails that model; then the offline model answers', async () => {
    fake.script(models.primary, { kind: 'hang' });
    fake.script(models.fallback, { kind: 'answer', category: 'Lodging', confidence: 0.9 }); // not one of the categories
    const since = fake.seen.length;
    const t = Date.now();
    const r = await chain({ offline }).categorize(input, { models });
    expect(Date.now() - t).toBeLessThan(5000);
    expect(messagesTo(models.primary, since)).toBe(3);
    expect(r).toMatchObject({ category: 'Travel', confidence: 0.66, model: 'offline-test', source: 'offline' });
    expect(r.attempts.map((a) => [a.model, a.outcome, a.reason])).toEqual([
      [models.primary, 'failed', 'timeout'],
      [models.fallback, 'failed', 'malformed answer (not one of the categories)'],
      ['offline-test', 'answered', undefined],
    ]);
  });

  it('text instead of a tool call, and a body that is not JSON, are failures; without an offline model the chain ends with "no model"', async () => {
    fake.script(models.primary, { kind: 'text' });
    fake.script(models.fallback, { kind: 'garbage' });
    const r = await chain().categorize(input, { models });
    expect(r).toMatchObject({ category: 'none', confidence: 0, model: null, source: 'none' });
    expect(r.attempts.map((a) => [a.model, a.outcome])).toEqual([[models.primary, 'failed'], [models.fallback, 'failed'], [NO_MODEL, 'skipped']]);
    expect(r.attempts[0]!.reason).toBe('malformed answer (no tool call)');
  });

  it("'none' from the model is an answer (nothing fits), not a failure", async () => {
    fake.script(models.primary, { kind: 'answer', category: 'none', confidence: 0.55 });
    const r = await chain({ offline }).categorize({ ...input, description: 'TRANSFER 99812' }, { models });
    expect(r).toMatchObject({ category: 'none', confidence: 0.55, model: models.primary, source: 'remote' });
  });

  it('without a key no request leaves the process: the offline model answers, or nothing does', async () => {
    const since = fake.seen.length;
    const noKey = new ModelChain({ baseURL: fake.url, offline });
    expect(await noKey.categorize(input, { models })).toMatchObject({ category: 'Travel', source: 'offline' });
    expect((await noKey.categorize({ ...input, description: 'ZELLE' }, { models })).attempts.map((a) => a.reason)).toEqual(['no API key configured', 'no API key configured', 'nothing learned for this company yet', 'no model could answer']);
    expect(await noKey.health()).toMatchObject({ status: 'offline', connected: false, keyConfigured: false });
    expect(await new ModelChain({}).health()).toMatchObject({ status: 'unavailable', chain: ['claude-sonnet-4-5', 'claude-haiku-4-5', NO_MODEL] });
    expect(await noKey.listModels()).toEqual([{ name: 'offline-test', displayName: 'Offline (built-in)', source: 'offline' }]);
    expect(fake.seen.length).toBe(since);
  });

  it('health and the model list come from the Models API; a refused key is reported without the key', async () => {
    const c = chain({ offline });
    const pings = fake.seen.length;
    expect(await c.health({ models })).toMatchObject({ status: 'ok', connected: true, keyConfigured: true, chain: [models.primary, models.fallback, 'offline-test'] });
    await c.health({ models }); // asked again at once: answered from the last check
    expect(fake.seen.slice(pings).filter((r) => r.path === '/v1/models')).toHaveLength(1);
    expect((await c.listModels()).map((m) => [m.name, m.source])).toEqual([...fake.models.map((m) => [m, 'remote']), ['offline-test', 'offline']]);
    fake.modelsStatus = 401;
    const h = await chain().health();
    fake.modelsStatus = 200;
    expect(h).toMatchObject({ status: 'degraded', connected: false, error: 'http 401 (the API key was refused)' });
    expect(JSON.stringify(h)).not.toContain(KEY);
  });

  it('the offline model chosen as primary is not sent to the API: the chain goes to it after the fallback', async () => {
    fake.script(models.fallback, { kind: 'status', status: 500 });
    const since = fake.seen.length;
    const r = await chain({ offline }).categorize(input, { models: { primary: 'offline-test', fallback: models.fallback } });
    expect(r).toMatchObject({ model: 'offline-test', source: 'offline' });
    expect(fake.seen.slice(since).filter((x) => x.model === 'offline-test')).toEqual([]);
  });

  it('a categorisation spends at most its budget on hosted models, then the offline model answers', async () => {
    fake.script(models.primary, { kind: 'hang' });
    fake.script(models.fallback, { kind: 'answer', category: 'Meals', confidence: 0.9 });
    const t = Date.now();
    const r = await chain({ offline, timeoutMs: 5000, budgetMs: 400 }).categorize(input, { models });
    expect(Date.now() - t).toBeLessThan(2000);
    expect(r).toMatchObject({ model: 'offline-test', source: 'offline' });
    expect(r.attempts.map((a) => [a.model, a.outcome, a.reason])).toEqual([[models.primary, 'failed', 'out of time'], [models.fallback, 'skipped', 'out of time'], ['offline-test', 'answered', undefined]]);
  });

  it("a caller's abort stops the chain at once (no fallback)", async () => {
    fake.script(models.primary, { kind: 'hang' });
    const since = fake.seen.length;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(chain({ timeoutMs: 5000 }).categorize(input, { models, signal: controller.signal })).rejects.toThrow();
    expect(messagesTo(models.fallback, since)).toBe(0);
  });
});
