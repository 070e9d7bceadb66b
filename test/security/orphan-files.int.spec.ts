import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../infra/src/blobs/local';
import { ORPHAN_SAFETY_MS } from '../../infra/src/blobs/sweep';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';

/**
 * Receipt files left on disk by a crash (bytes stored, the process gone
 * before the receipt was recorded) are removed on start once older than the safety age; files
 * of live receipts, and young files that may belong to an upload in flight, stay.
 */
const dir = mkdtempSync(join(tmpdir(), 'paperlink-orphans-'));
const files = join(dir, 'files');
const pathOf = (sha: string) => join(files, sha.slice(0, 2), sha.slice(2, 4), sha);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const OLD = new Date(Date.now() - ORPHAN_SAFETY_MS - 60_000);
const age = (path: string) => utimesSync(path, OLD, OLD);

let api: Api;
let ada: Account;
beforeAll(async () => {
  api = await startApi({}, dir, { reader: labelledReader() });
  ada = await registerAccount(api);
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('files left on disk by a crash', () => {
  it('are removed on start when no receipt refers to them and they are older than the safety age', async () => {
    expect(ORPHAN_SAFETY_MS).toBeGreaterThanOrEqual(60 * 60 * 1000);

    // A receipt that lives: its file is old, and stays.
    const liveBytes = imageOf(labels[0]!.id);
    const live = await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', liveBytes, 'live.jpg');
    expect(live.status).toBe(201);

    // A receipt that was deleted: its file is part of the history auditors replay, and stays.
    const deletedBytes = imageOf(labels[3]!.id);
    const deleted = await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', deletedBytes, 'deleted.jpg');
    expect(deleted.status).toBe(201);
    expect((await api.http.delete(`/api/receipts/${deleted.body.receipt.id}`).set(ada.headers())).status).toBe(200);

    // The crash: the bytes are stored, then the process dies before the receipt is recorded.
    const events = api.paperlink.adapters.events;
    const append = events.appendMany.bind(events);
    events.appendMany = async () => {
      throw new Error('power cut');
    };
    const crashBytes = imageOf(labels[1]!.id);
    const crashed = await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', crashBytes, 'lost.jpg');
    events.appendMany = append;
    expect(crashed.status).toBe(500);
    expect(existsSync(pathOf(sha256(crashBytes)))).toBe(true);

    // A direct upload whose commit has not come yet: young, so it stays and can still be committed.
    const directBytes = imageOf(labels[2]!.id);
    const pre = await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'later.jpg', contentType: 'image/jpeg', size: directBytes.length });
    expect((await api.http.put(pre.body.uploadUrl).set('content-type', 'image/jpeg').send(directBytes)).status).toBe(200);

    // Other leftovers: an old orphan written by an older crash, a young one (an upload in
    // flight), half-written temporary files old and young.
    const oldOrphan = randomBytes(64);
    const youngOrphan = randomBytes(64);
    for (const b of [oldOrphan, youngOrphan]) {
      mkdirSync(join(pathOf(sha256(b)), '..'), { recursive: true });
      writeFileSync(pathOf(sha256(b)), b);
    }
    const oldTmp = join(files, 'tmp', randomUUID());
    const youngTmp = join(files, 'tmp', randomUUID());
    writeFileSync(oldTmp, 'half');
    writeFileSync(youngTmp, 'half');
    await api.close();

    for (const p of [pathOf(sha256(liveBytes)), pathOf(sha256(deletedBytes)), pathOf(sha256(crashBytes)), pathOf(sha256(oldOrphan)), oldTmp]) age(p);

    api = await startApi({}, dir, { reader: labelledReader() });
    const report = await api.paperlink.orphanSweep;
    expect(report).not.toBeNull();
    expect(report!.removed.sort()).toEqual([sha256(crashBytes), sha256(oldOrphan)].sort());
    expect(report!.removedTemporary).toBe(1);

    expect(existsSync(pathOf(sha256(crashBytes)))).toBe(false);
    expect(existsSync(pathOf(sha256(oldOrphan)))).toBe(false);
    expect(existsSync(oldTmp)).toBe(false);
    expect(existsSync(pathOf(sha256(liveBytes)))).toBe(true);
    expect(existsSync(pathOf(sha256(deletedBytes)))).toBe(true);
    expect(existsSync(pathOf(sha256(youngOrphan)))).toBe(true);
    expect(existsSync(pathOf(sha256(directBytes)))).toBe(true);
    expect(existsSync(youngTmp)).toBe(true);

    // The live receipt still shows its file; the direct upload can still be committed and viewed.
    const view = await api.http.get(`/api/receipts/${live.body.receipt.id}/view`).set(ada.headers());
    expect(view.status).toBe(200);
    expect(Buffer.compare(view.body as Buffer, liveBytes)).toBe(0);
    const commit = await api.http.post('/api/receipts/commit').set(ada.headers()).send({ key: pre.body.key, originalName: 'later.jpg', size: directBytes.length, contentType: 'image/jpeg' });
    expect(commit.status).toBe(201);
    expect((await api.http.get(`/api/receipts/${commit.body.receipt.id}/view`).set(ada.headers())).status).toBe(200);

    // The lost receipt can be uploaded again: its bytes are stored anew.
    const again = await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', crashBytes, 'lost.jpg');
    expect(again.status).toBe(201);
    expect(existsSync(pathOf(sha256(crashBytes)))).toBe(true);
  });

  it('a file stored again while a sweep runs is never removed by it', async () => {
    const root = join(dir, 'other-files');
    const blobs = new LocalBlobStore(root);
    const bytes = randomBytes(128);
    await blobs.put(bytes);
    const path = join(root, sha256(bytes).slice(0, 2), sha256(bytes).slice(2, 4), sha256(bytes));
    age(path);
    // The sweep asks which keys are referenced; meanwhile the same bytes are uploaded again.
    const report = await blobs.sweepOrphans(async (keys) => {
      if (keys.includes(sha256(bytes))) await blobs.put(bytes);
      return new Set();
    }, ORPHAN_SAFETY_MS);
    expect(report.removed).not.toContain(sha256(bytes));
    expect(existsSync(path)).toBe(true);
    // Without the upload, the same old unreferenced file goes.
    age(path);
    expect((await blobs.sweepOrphans(async () => new Set(), ORPHAN_SAFETY_MS)).removed).toEqual([sha256(bytes)]);
    expect(existsSync(path)).toBe(false);
  });
});
