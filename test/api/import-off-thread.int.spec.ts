/**
 * ADR 0008 (import off the request thread): a large statement is parsed, decided and
 * made into events in the event store's writer thread (IMPORT_STAGE_BYTES), not on the request
 * thread. Same answers and guarantees as the request-thread path: exact de-duplication as a
 * multiset (ADR 0023), a file imported twice adds nothing, the row limit and the mapping
 * refusal say the same, members assigned by name; and the request thread's own CPU time per
 * row for a staged file is a fraction of what the same rows cost it below the threshold.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

const STAGE_BYTES = 400_000;
const HEADER = 'Transaction Date,Description,Amount,Category,First Name,Last Name';

/** `rows` lines of about `width` characters each, numbered from `from`. */
function statement(rows: number, opts: { from?: number; prefix?: string; pad?: number; header?: string; extra?: string[] } = {}): Buffer {
  const from = opts.from ?? 0;
  const pad = 'X'.repeat(opts.pad ?? 0);
  const lines = [opts.header ?? HEADER];
  for (let i = from; i < from + rows; i++) {
    lines.push(`2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')},${opts.prefix ?? 'CARD'} ${i} ${pad},-${(1 + (i % 50_000)) / 100},Travel,${i % 3 === 0 ? 'Bea,Member' : ','}`);
  }
  lines.push(...(opts.extra ?? []));
  return Buffer.from(lines.join('\n') + '\n');
}

/** CPU time of the calling thread (the request thread: the server runs in this one), ms, from /proc. */
function threadCpuMs(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

let api: Api;
let ada: Account;

async function importFile(bytes: Buffer, name: string, fields: Record<string, string> = {}) {
  let req = api.http.post('/api/transactions/import').set(ada.headers());
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  return req.attach('csvFile', bytes, name);
}
/** The list's total once the read models have caught up (an answer waits for them at most READ_SIDE_WAIT_MS). */
async function totalReaching(n: number): Promise<number> {
  let seen = -1;
  for (let i = 0; i < 300 && seen !== n; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    seen = await total();
  }
  return seen;
}
async function total(query: Record<string, string> = {}): Promise<number> {
  const res = await api.http.get('/api/transactions').query({ limit: '1', ...query }).set(ada.headers()).expect(200);
  return res.body.pagination.total as number;
}

const answerWaits: number[] = [];

describe('a large statement imported in the event store thread', () => {
  beforeAll(async () => {
    api = await startApi({ IMPORT_STAGE_BYTES: String(STAGE_BYTES), MAX_IMPORT_ROWS: '10000', IMPORT_ANSWER_WAIT_ROWS: '5000' });
    // The waits the answers ask of the runner (ADR 0030: an import of more than 5,000 new rows asks for none).
    const runner = api.paperlink.runner;
    const waitFor = runner.waitFor.bind(runner);
    runner.waitFor = (position: number, timeoutMs?: number) => {
      answerWaits.push(timeoutMs ?? -1);
      return waitFor(position, timeoutMs);
    };
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
    const bea = await registerAccount(api, { firstName: 'Bea', lastName: 'Member' });
    await invite(api, ada, bea);
  }, 30_000);
  afterAll(() => api?.close());

  it('imports, de-duplicates as a multiset and refuses a second import of the same file', async () => {
    // 200 rows the company holds already (a small file: the request-thread path).
    const small = statement(200, { from: 0 });
    expect(small.length).toBeLessThan(STAGE_BYTES);
    expect((await importFile(small, 'small.csv')).body.imported).toBe(200);
    // 6,000 new rows (padded descriptions), 3 rows of the small file (held) and two identical new ones.
    const lines = statement(6_000, { from: 0, pad: 40 }).toString().trimEnd().split('\n');
    const fresh = '2025-01-02,TWO COFFEES,-4.50,Meals,,';
    const heldLines = small.toString().trimEnd().split('\n').slice(1, 4);
    const withHeld = Buffer.from([...lines, ...heldLines, fresh, fresh].join('\n') + '\n');
    expect(withHeld.length).toBeGreaterThan(STAGE_BYTES);
    answerWaits.length = 0;
    const res = await importFile(withHeld, 'big.csv');
    expect(res.status).toBe(200);
    // More new rows than IMPORT_ANSWER_WAIT_ROWS: answered without waiting for their projection, saying whether they are listed.
    expect(answerWaits).toContain(0);
    expect(['current', 'behind']).toContain(res.headers['x-read-side']);
    expect(res.body).toMatchObject({ imported: 6_002, skipped: 3, total: 6_005, rejected: 0, alreadyImported: false });
    expect(res.body.duplicates).toHaveLength(3);
    expect(res.body.fileHash).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.userMatching.matched).toBe(2_001); // every third row names Bea, and the first held one
    expect(res.body.userMatching.details[0]).toMatchObject({ row: 2, assignedToName: 'Bea Member', status: 'name_matched' });
    expect(await totalReaching(6_202)).toBe(6_202);
    // Both identical rows, with their fields as the request-thread path writes them.
    const day = await api.http.get('/api/transactions').query({ startDate: '2025-01-02', endDate: '2025-01-02' }).set(ada.headers()).expect(200);
    expect(day.body.transactions).toHaveLength(2);
    expect(day.body.transactions.map((t: { description: string }) => t.description)).toEqual(['TWO COFFEES', 'TWO COFFEES']);
    // The same bytes again: nothing added.
    const again = await importFile(withHeld, 'big-again.csv');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ imported: 0, alreadyImported: true });
    expect(await totalReaching(6_202)).toBe(6_202);
    // A row held once, four times in a new file: three more (a multiset); the other rows held: none.
    answerWaits.length = 0;
    const third = await importFile(Buffer.from([...lines.slice(0, 5_000), lines[5], lines[5], lines[5]].join('\n') + '\n'), 'third.csv');
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ imported: 3, skipped: 4_999 });
    expect(answerWaits).not.toContain(0);
    expect(answerWaits.length).toBeGreaterThan(0);
    expect(await totalReaching(6_205)).toBe(6_205);
  }, 120_000);

  it('says what a refusal says on the request-thread path: the row limit, an unknown header', async () => {
    const tooMany = await importFile(statement(10_001, { from: 100_000, pad: 4 }), 'many.csv');
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatchObject({ code: 'too_many_rows', error: 'This file has 10,001 rows; an import takes at most 10,000 rows. Split the file.' });
    const odd = statement(5_000, { from: 200_000, pad: 60, header: 'When,What,HowMuch,Kind,A,B' });
    const refused = await importFile(odd, 'odd.csv');
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('mapping_required');
    const mapped = await importFile(odd, 'odd.csv', { mapping: JSON.stringify({ date: 0, description: 1, amount: 2, category: 3 }) });
    expect(mapped.status).toBe(200);
    expect(mapped.body.imported).toBe(5_000);
  }, 120_000);

  it("leaves the request thread a fraction of the CPU time the same rows cost it on the request-thread path", async () => {
    const ROWS = 8_000;
    // Files of about the same size on either side of the threshold (bytes cost the request thread
    // too: the upload, multipart): the largest padding below it and the smallest above.
    const sized = (from: number, prefix: string, above: boolean) => {
      let pad = 0;
      while (statement(ROWS, { from, prefix, pad: pad + 1 }).length < STAGE_BYTES) pad++;
      return statement(ROWS, { from, prefix, pad: above ? pad + 1 : pad });
    };
    const below = sized(300_000, 'BELOW', false);
    const above = sized(400_000, 'ABOVE', true);
    expect(below.length).toBeLessThan(STAGE_BYTES);
    expect(above.length).toBeGreaterThanOrEqual(STAGE_BYTES);
    expect(above.length / below.length).toBeLessThan(1.05);
    const cost = async (file: Buffer, name: string) => {
      const before = threadCpuMs();
      const res = await importFile(file, name);
      expect(res.status).toBe(200);
      expect(res.body.imported).toBe(ROWS);
      return threadCpuMs() - before;
    };
    // Alternated, the smaller of two each: a collection or a compile in one run does not decide.
    const below2 = sized(500_000, 'BELOW', false);
    const above2 = sized(600_000, 'ABOVE', true);
    const b1 = await cost(below, 'below-1.csv');
    const a1 = await cost(above, 'above-1.csv');
    const b2 = await cost(below2, 'below-2.csv');
    const a2 = await cost(above2, 'above-2.csv');
    const inThread = Math.min(b1, b2);
    const staged = Math.min(a1, a2);
    console.log(`request thread CPU for ${ROWS} rows: ${inThread} ms on the request-thread path, ${staged} ms staged`);
    expect(staged).toBeLessThan(inThread * 0.7);
  }, 120_000);
});
