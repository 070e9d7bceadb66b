/**
 * ADR 0010: every event carries a hash over its canonical content (RFC 8785) and the
 * previous event's hash; the chain check catches an edited, a deleted and a reordered event;
 * files of the previous format get their chain on start, once; an admin (or auditor) exports a
 * company's events as a signed bundle that `make verify BUNDLE=…` checks offline.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { canonicalJson, GENESIS_HASH, upgradeChain, verifyChain } from '../../infra/src/eventstore/chain';
import { upgradeRequestRecords } from '../../infra/src/eventstore/upgrade-request-records';
import { verifyChainFile, verifyChainParallel } from '../../infra/src/audit/tasks';
import { auditSigningKey, checkBundle, type BundleEvent } from '../../infra/src/audit/bundle';
import { invite, registerAccount, startApi, TEST_HASH_PREFIX, type Account, type Api } from '../support/harness';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'paperlink-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ev = (type: string, data: unknown, metadata: NewEvent['metadata'] = { occurredAt: new Date().toISOString(), companyId: 'c1', requestId: randomUUID() }): NewEvent => ({ id: randomUUID(), type, data, metadata });

/** A log of 12 events: single appends, a command's events sharing metadata, several streams at once, and a bulk append. */
async function sampleLog(file: string): Promise<void> {
  const store = new SqliteEventStore(file, { bulkWriter: true });
  await store.appendToStream('t-1', [ev('A', { n: 1, 'é': 'ü', z: [1, 2.5, { b: null, a: true }] })], 'no_stream');
  const shared = { occurredAt: '2024-03-01T10:00:00.000Z', companyId: 'c1', userId: 'u1' };
  await store.appendToStream('t-1', [ev('B', { n: 2 }, shared), ev('C', { n: 3 }, shared), ev('D', { n: 4 }, shared)], 0);
  await store.appendMany([
    { streamId: 'r-1', events: [ev('E', { amount: 1e21, small: 0.1 })], expectedRevision: 'no_stream' },
    { streamId: 'r-2', events: [ev('F', { when: new Date('2024-01-02T03:04:05Z'), gone: undefined })], expectedRevision: 'no_stream' },
  ]);
  // More than 2 MB of data: the bulk writer thread appends it on its own connection.
  const rows = Array.from({ length: 12_000 }, (_, i) => ({ row: i, description: `CARD PAYMENT ${i} ${'x'.repeat(150)}` }));
  await store.appendToStream('import-1', [ev('Imported', { rows })], 'no_stream');
  for (let i = 0; i < 5; i++) await store.appendToStream('t-2', [ev('G', { i })], i === 0 ? 'no_stream' : i - 1);
  await store.close();
}

describe('canonical JSON (RFC 8785)', () => {
  it('equals the canonicalize package, and JSON.stringify for what JSON drops or converts', () => {
    const values: unknown[] = [
      { b: 1, a: [true, false, null, 'x'], c: { y: 1e-7, x: 1e21, w: -0, v: 123.456 } },
      { '€': 1, '\u0080': 2, a: 3, A: 4, '\ud83d\ude00': 5, 'a\nb': 'line\u2028sep"q\\' },
      [[], {}, [{}], 0, -1.5, 'tab\t'],
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(canonicalize(v));
    const odd = { d: new Date('2024-01-01T00:00:00Z'), u: undefined, f: () => 1, list: [undefined, () => 1] };
    expect(canonicalJson(odd)).toBe(canonicalize(JSON.parse(JSON.stringify(odd))));
  });
});

/** A copy of an event file (its WAL folded in first) with one change made through SQLite. */
function changedCopy(file: string, prefix: string, change: (db: Database.Database) => void): string {
  const copy = join(dir, `${prefix}-${randomUUID()}.sqlite`);
  const source = new Database(file);
  source.pragma('wal_checkpoint(TRUNCATE)');
  source.close();
  copyFileSync(file, copy);
  const db = new Database(copy);
  change(db);
  db.close();
  return copy;
}

describe('the hash chain of the SQLite event store', () => {
  const file = join(dir, 'events.sqlite');
  beforeAll(() => sampleLog(file));

  it('hashes every event at append time (request thread and bulk writer alike) and the chain checks out', () => {
    const report = verifyChainFile(file);
    expect(report).toMatchObject({ ok: true, checked: 12 });
    expect(report.head.position).toBe(12);
    expect(report.head.hash).toMatch(/^[0-9a-f]{64}$/);
    const db = new Database(file, { readonly: true });
    const hashes = db.prepare<[], { hash: Buffer }>('SELECT hash FROM events ORDER BY position').all();
    db.close();
    expect(hashes.every((h) => h.hash.length === 32)).toBe(true);
    expect(new Set(hashes.map((h) => h.hash.toString('hex'))).size).toBe(12);
  });

  /** A copy of the file with one change made through SQLite, then checked. */
  function tampered(change: (db: Database.Database) => void) {
    const copy = changedCopy(file, 'tampered', change);
    return { copy, ...verifyChainFile(copy) };
  }
  const idAt = (position: number) => {
    const db = new Database(file, { readonly: true });
    const row = db.prepare<[number], { event_id: string }>('SELECT event_id FROM events WHERE position = ?').get(position)!;
    db.close();
    return row.event_id;
  };

  it('catches an edited event: the data of one row changed in the file', () => {
    const report = tampered((db) => db.prepare("UPDATE events SET data = json_set(data, '$.amount', 2e21) WHERE position = 5").run());
    expect(report.ok).toBe(false);
    expect(report.broken).toMatchObject({ position: 5, eventId: idAt(5), reason: 'hash_mismatch' });
    expect(report.broken!.expected).not.toBe(report.broken!.found);
    expect(report.head.position).toBe(4);
  });

  it('catches edited metadata shared by the events of one command, at the first of them', () => {
    const report = tampered((db) => db.prepare("UPDATE events SET metadata = json_set(metadata, '$.userId', 'someone-else') WHERE position = 2").run());
    expect(report.broken).toMatchObject({ position: 2, eventId: idAt(2), reason: 'hash_mismatch' });
  });

  it('large events are checked in smaller chunks, a single larger one row by row, with the same result', () => {
    const db = new Database(file, { readonly: true });
    // The 2 MB import event above a 1,000-byte budget, the small ones in chunks of a few.
    expect(verifyChain(db, { after: 0 }, { chunkBytes: 1000 })).toMatchObject({ ok: true, checked: 12, head: verifyChain(db).head });
    db.close();
    const edited = tampered((db) => db.prepare("UPDATE events SET data = json_set(data, '$.i', 7) WHERE position = 9").run());
    const copy = new Database(edited.copy, { readonly: true });
    expect(verifyChain(copy, { after: 0 }, { chunkBytes: 1000 }).broken).toEqual(edited.broken);
    copy.close();
  });

  it('catches a deleted event', () => {
    const report = tampered((db) => db.prepare('DELETE FROM events WHERE position = 7').run());
    expect(report.ok).toBe(false);
    expect(report.broken).toMatchObject({ position: 7, reason: 'position_gap' });
    expect(report.checked).toBe(7);
  });

  it('checked in ranges on several threads, the chain gives the same first broken link', async () => {
    expect(await verifyChainParallel(file, { threads: 3, parallelFrom: 1 })).toMatchObject({ ok: true, checked: 12, head: { position: 12 } });
    for (const change of ["UPDATE events SET data = json_set(data, '$.i', 7) WHERE position = 9", 'DELETE FROM events WHERE position = 8', 'DELETE FROM events WHERE position = 4']) {
      const single = tampered((db) => db.prepare(change).run());
      const parallel = await verifyChainParallel(single.copy, { threads: 3, parallelFrom: 1 });
      expect(parallel.ok).toBe(false);
      expect(parallel.broken).toEqual(single.broken);
      expect(parallel.checked).toBe(single.checked);
    }
  });

  it('catches two events swapped (each row moved to the other position, hashes and all)', () => {
    const report = tampered((db) => {
      db.transaction(() => {
        db.prepare('UPDATE events SET position = -1 WHERE position = 9').run();
        db.prepare('UPDATE events SET position = 9 WHERE position = 10').run();
        db.prepare('UPDATE events SET position = 10 WHERE position = -1').run();
      })();
    });
    expect(report.ok).toBe(false);
    expect(report.broken).toMatchObject({ position: 9, eventId: idAt(10), reason: 'hash_mismatch' });
  });

  it('a hash removed from a row is a broken link, not something the next start fills in', async () => {
    const report = tampered((db) => db.prepare('UPDATE events SET hash = NULL WHERE position = 6').run());
    expect(report.broken).toMatchObject({ position: 6, eventId: idAt(6), reason: 'missing_hash', found: null });
    const reopened = new SqliteEventStore(report.copy);
    await reopened.close();
    expect(verifyChainFile(report.copy).broken).toMatchObject({ position: 6, reason: 'missing_hash' });
  });

  it('catches a stored hash rewritten to match edited data, at the next event', () => {
    const report = tampered((db) => {
      db.prepare("UPDATE events SET data = json_set(data, '$.i', 99) WHERE position = 11").run();
      // Recompute this row's hash as a forger would: the next event still names the old one.
      const broken = verifyChain(db).broken!;
      db.prepare('UPDATE events SET hash = ? WHERE position = 11').run(Buffer.from(broken.expected, 'hex'));
    });
    expect(report.broken).toMatchObject({ position: 12, reason: 'hash_mismatch' });
  });

  it('`make verify` reports an intact chain, and the first broken link with exit code 1', async () => {
    const folder = mkdtempSync(join(dir, 'data-'));
    copyFileSync(file, join(folder, 'events.sqlite'));
    const ok = await run('node', ['--import', 'tsx', 'infra/src/cli/verify.ts'], { cwd: ROOT, env: { ...process.env, DATA_DIR: folder } });
    expect(ok.stdout).toContain('Chain intact. Head: position 12');
    const db = new Database(join(folder, 'events.sqlite'));
    db.prepare("UPDATE events SET type = 'Z' WHERE position = 3").run();
    db.close();
    const bad = await run('node', ['--import', 'tsx', 'infra/src/cli/verify.ts'], { cwd: ROOT, env: { ...process.env, DATA_DIR: folder } }).catch((e: { code: number; stdout: string }) => e);
    expect('code' in bad ? bad.code : 0).toBe(1);
    expect(bad.stdout).toContain(`BROKEN at position 3 (event ${idAt(3)}): hash_mismatch`);
  });
});

describe('the chain check over several chunks (SQLite assembles 1,000 documents at a time; any doubt is walked row by row)', () => {
  const file = join(dir, 'chunks.sqlite');
  const N = 2600;
  beforeAll(async () => {
    const store = new SqliteEventStore(file, { synchronous: 'NORMAL' });
    for (let a = 0; a < N / 100; a++) {
      const meta = { occurredAt: '2024-03-01T10:00:00.000Z', companyId: 'c1', requestId: randomUUID() };
      // Names that need escaping in JSON, in the middle of a chunk.
      const stream = a === 12 ? 'odd "stream" \\ name' : `s-${a}`;
      await store.appendToStream(stream, Array.from({ length: 100 }, (_, i) => ev(a === 12 && i === 50 ? 'Odd"Type\\' : 'T', { a, i, text: 'é "q"' }, meta)), 'no_stream');
    }
    await store.close();
  });
  const copyWith = (change: (db: Database.Database) => void) => changedCopy(file, 'chunks', change);

  it('an intact log checks out whole, on one thread and in ranges', async () => {
    expect(verifyChainFile(file)).toMatchObject({ ok: true, checked: N, head: { position: N } });
    expect(await verifyChainParallel(file, { threads: 2, parallelFrom: 1 })).toMatchObject({ ok: true, checked: N, head: { position: N } });
  });

  it('names the first broken link past the first chunk: an edit, a deleted first row of a chunk, a removed hash', () => {
    expect(verifyChainFile(copyWith((db) => db.prepare("UPDATE events SET data = json_set(data, '$.i', -1) WHERE position = 2345").run())).broken).toMatchObject({ position: 2345, reason: 'hash_mismatch' });
    const gap = verifyChainFile(copyWith((db) => db.prepare('DELETE FROM events WHERE position = 2001').run()));
    expect(gap).toMatchObject({ ok: false, checked: 2001, broken: { position: 2001, reason: 'position_gap' } });
    expect(verifyChainFile(copyWith((db) => db.prepare('UPDATE events SET hash = NULL WHERE position = 1000').run())).broken).toMatchObject({ position: 1000, reason: 'missing_hash' });
    // A whole chunk deleted: the gap is still named at its first position.
    expect(verifyChainFile(copyWith((db) => db.prepare('DELETE FROM events WHERE position > 1000 AND position <= 2000').run())).broken).toMatchObject({ position: 1001, reason: 'position_gap' });
  });

  it('a row stored as an older version wrote it (same content, keys in another order) still checks out', () => {
    const copy = copyWith((db) => {
      const row = db.prepare<[], { data: string }>('SELECT data FROM events WHERE position = 1500').get()!;
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(row.data) as Record<string, unknown>).reverse()));
      expect(reordered).not.toBe(row.data);
      db.prepare('UPDATE events SET data = ? WHERE position = 1500').run(reordered);
    });
    expect(verifyChainFile(copy)).toMatchObject({ ok: true, checked: N });
  });
});

describe('upgrade of a previous-format data folder (test/fixtures/previous-format)', () => {
  it('computes the chain for the rows it holds on start, once; appends continue it', async () => {
    const folder = mkdtempSync(join(dir, 'previous-'));
    cpSync(join(import.meta.dirname, '..', 'fixtures', 'previous-format', 'data-b401118'), folder, { recursive: true });
    const file = join(folder, 'events.sqlite');
    const before = new Database(file, { readonly: true });
    const columns = before.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all().map((c) => c.name);
    const rows = before.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events').get()!.n;
    before.close();
    expect(columns).not.toContain('hash');
    expect(rows).toBeGreaterThan(20);
    expect(() => verifyChainFile(file)).toThrow(/without event hashes/);

    // The server's start: the request-record upgrade, then the store (which adds the chain).
    upgradeRequestRecords(file);
    const store = new SqliteEventStore(file);
    await store.close();
    const first = verifyChainFile(file);
    expect(first).toMatchObject({ ok: true, checked: rows, head: { position: rows } });

    const db = new Database(file);
    expect(upgradeChain(db)).toBe(0);
    db.close();
    const again = new SqliteEventStore(file);
    await again.appendToStream(`t-${randomUUID()}`, [ev('After', { ok: true })], 'no_stream');
    await again.close();
    const after = verifyChainFile(file);
    expect(after).toMatchObject({ ok: true, checked: rows + 1 });
    expect(after.head.hash).not.toBe(first.head.hash);
  });

  it('an empty store starts from the genesis hash', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE streams (stream_key INTEGER PRIMARY KEY, stream_id TEXT, revision INTEGER); CREATE TABLE events (position INTEGER PRIMARY KEY, event_id TEXT, stream_key INTEGER, revision INTEGER, type TEXT, data TEXT, metadata TEXT, commit_position INTEGER)');
    expect(upgradeChain(db)).toBe(0);
    expect(verifyChain(db)).toMatchObject({ ok: true, checked: 0, head: { position: 0, hash: GENESIS_HASH } });
    db.close();
  });
});

describe('GET /api/audit/verify and /api/audit/export', () => {
  let api: Api;
  let admin: Account;
  let member: Account;
  beforeAll(async () => {
    api = await startApi({ JWT_SECRET: 'chain-test-secret-0123456789abcdef0123456789' }, undefined, { noJobs: true });
    admin = await registerAccount(api, { companyName: 'Audited Co', password: 'AdminSecret1' });
    member = await registerAccount(api, { companyName: 'Member Own Co', password: 'MemberSecret1' });
    await invite(api, admin, member, 'user');
    const csv = 'Transaction Date,Description,Amount\n2024-02-01,AUDITED LUNCH,-12.50\n2024-02-03,AUDITED TAXI,-30.00\n';
    await api.http.post('/api/transactions/import').set(member.headers(admin.companyId)).attach('csvFile', Buffer.from(csv), 's.csv').expect(200);
    await api.http.put('/api/auth/password').set(member.headers(admin.companyId)).send({ currentPassword: 'MemberSecret1', newPassword: 'MemberSecret2' }).expect(200);
  });
  afterAll(() => api?.close());
  /** The bundle as text (its type is application/x-ndjson, which supertest does not read as text). */
  const download = async (url: string): Promise<{ status: number; text: string; disposition: string }> => {
    const res = await api.http.get(url).set(admin.headers()).buffer(true).parse((r, done) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => done(null, Buffer.concat(parts).toString('utf8')));
    });
    return { status: res.status, text: res.body as string, disposition: String(res.headers['content-disposition']) };
  };

  it('an admin sees the chain intact, with the head and the public key; a plain member is refused', async () => {
    const res = await api.http.get('/api/audit/verify').set(admin.headers()).expect(200);
    expect(res.body).toMatchObject({ ok: true, publicKey: auditSigningKey('chain-test-secret-0123456789abcdef0123456789').publicKey });
    expect(res.body.checked).toBe(await api.paperlink.adapters.events.headPosition());
    expect((await api.http.get('/api/audit/verify').set(member.headers(admin.companyId))).status).toBe(403);
    expect((await api.http.get('/api/audit/export').set(member.headers(admin.companyId))).status).toBe(403);
  });

  it("exports the company's events as a signed bundle that checks offline, without secrets", async () => {
    const res = await download('/api/audit/export');
    expect(res.status).toBe(200);
    const text = res.text;
    expect(res.disposition).toMatch(/attachment; filename="audit_start_to_end\.jsonl"/);
    const check = checkBundle(text, auditSigningKey('chain-test-secret-0123456789abcdef0123456789').publicKey);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    const events = text.trim().split('\n').slice(1).map((l) => JSON.parse(l) as BundleEvent);
    expect(check.events).toBe(events.length);
    expect(events.every((e) => e.metadata.companyId === admin.companyId)).toBe(true);
    expect(events.some((e) => JSON.stringify(e.data).includes('AUDITED TAXI'))).toBe(true);
    expect(events.some((e) => e.stream.startsWith('company-'))).toBe(true);
    expect(check.linksChecked).toBeGreaterThan(0);
    // No request records (fingerprints), no account events (password hashes), no passwords.
    expect(events.some((e) => e.stream.startsWith('request-') || e.stream.startsWith('user-'))).toBe(false);
    for (const secret of ['fingerprint', 'passwordHash', 'MemberSecret', 'AdminSecret', 'argon2', TEST_HASH_PREFIX]) expect(text).not.toContain(secret);
    // The member's own company is not in it.
    expect(text).not.toContain(member.companyId);

    // Offline check by `make verify BUNDLE=…`, then the same bundle with one event changed.
    const bundle = join(dir, 'bundle.jsonl');
    writeFileSync(bundle, text);
    const ok = await run('node', ['--import', 'tsx', 'infra/src/cli/verify.ts'], { cwd: ROOT, env: { ...process.env, BUNDLE: bundle } });
    expect(ok.stdout).toContain('Bundle intact.');
    writeFileSync(bundle, text.replace('AUDITED TAXI', 'AUDITED TRAIN'));
    const bad = await run('node', ['--import', 'tsx', 'infra/src/cli/verify.ts'], { cwd: ROOT, env: { ...process.env, BUNDLE: bundle } }).catch((e: { code: number; stdout: string }) => e);
    expect('code' in bad ? bad.code : 0).toBe(1);
    expect(bad.stdout).toMatch(/BROKEN: event at position \d+ \(.*\): content does not match its hash/);
    expect(bad.stdout).toContain('BROKEN: the event lines do not match the manifest digest');
  });

  it('a bundle re-signed with another key, or with a line dropped, or for another period, fails the check', async () => {
    const { text } = await download('/api/audit/export?startDate=2000-01-01&endDate=2999-12-31');
    const key = auditSigningKey('chain-test-secret-0123456789abcdef0123456789').publicKey;
    expect(checkBundle(text, key).ok).toBe(true);
    expect(checkBundle(text, auditSigningKey('another-server').publicKey).problems).toContain('the bundle is signed with another key than the one expected');
    const lines = text.trim().split('\n');
    const dropped = `${[lines[0], ...lines.slice(2)].join('\n')}\n`;
    expect(checkBundle(dropped, key).problems).toEqual(expect.arrayContaining(['the event lines do not match the manifest digest (lines changed, added or removed)']));
    const manifest = JSON.parse(lines[0]!) as { manifest: { count: number } };
    manifest.manifest.count += 1;
    expect(checkBundle(`${[JSON.stringify(manifest), ...lines.slice(1)].join('\n')}\n`, key).problems).toContain('the manifest signature does not match its content');
    const none = (await download('/api/audit/export?startDate=2001-01-01&endDate=2001-12-31')).text;
    expect(JSON.parse(none.split('\n')[0]!).manifest).toMatchObject({ count: 0, first: null, last: null });
    expect((await api.http.get('/api/audit/export?startDate=2024-05-01&endDate=2024-01-01').set(admin.headers())).status).toBe(400);
  });

  it('reports the first broken link when a row of the live store is edited', async () => {
    const db = new Database(join(api.dataDir, 'events.sqlite'));
    const row = db.prepare<[], { position: number; event_id: string }>("SELECT position, event_id FROM events WHERE data LIKE '%AUDITED LUNCH%' ORDER BY position LIMIT 1").get()!;
    db.prepare("UPDATE events SET data = replace(data, 'AUDITED LUNCH', 'AUDITED DINNER') WHERE position = ?").run(row.position);
    db.close();
    const res = await api.http.get('/api/audit/verify').set(admin.headers()).expect(200);
    expect(res.body).toMatchObject({ ok: false, broken: { position: row.position, eventId: row.event_id, reason: 'hash_mismatch' } });
    expect(res.body.broken.expected).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.broken.found).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.broken.found).not.toBe(res.body.broken.expected);
  });
});
