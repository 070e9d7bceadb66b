import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreContract } from './contract';
import { LocalBlobStore } from './local';

const roots: string[] = [];
const tempRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-blobs-'));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Every file under `root`, as paths relative to it. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name))).sort();
}

blobStoreContract('local disk', async () => new LocalBlobStore(tempRoot()));

describe('local disk blob store', () => {
  it('keeps one file per content under <root>/ab/cd/<sha256> and leaves nothing in tmp/', async () => {
    const root = tempRoot();
    const store = new LocalBlobStore(root);
    const bytes = randomBytes(10_000);
    const key = sha256(bytes);
    await store.put(bytes);
    await store.put(bytes);
    await Promise.all(Array.from({ length: 5 }, () => store.put(bytes)));
    expect(await filesUnder(root)).toEqual([[key.slice(0, 2), key.slice(2, 4), key].join(sep)]);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('never shows a partly written file under a real key: bytes are written to tmp/ and renamed into place', async () => {
    const root = tempRoot();
    const store = new LocalBlobStore(root);
    const bytes = randomBytes(24 * 1024 * 1024);
    const key = sha256(bytes);
    const finalPath = join(root, key.slice(0, 2), key.slice(2, 4), key);
    const seenSizes = new Set<number>();
    let sawTmp = false;
    let writing = true;
    const watcher = (async () => {
      while (writing) {
        const size = await stat(finalPath).then((s) => s.size, () => -1);
        if (size >= 0) seenSizes.add(size);
        if (!sawTmp) sawTmp = (await readdir(join(root, 'tmp'))).length > 0;
        await new Promise((r) => setImmediate(r));
      }
    })();
    try {
      await store.put(bytes);
    } finally {
      writing = false;
      await watcher;
    }
    // Whenever the real path existed it had every byte; a partial file only ever lived in tmp/.
    expect([...seenSizes].filter((s) => s !== bytes.byteLength)).toEqual([]);
    expect(sawTmp).toBe(true);
    expect((await stat(finalPath)).size).toBe(bytes.byteLength);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('a temporary file left by a crash is not a blob, and the bytes can still be stored', async () => {
    const root = tempRoot();
    const store = new LocalBlobStore(root);
    const bytes = randomBytes(4096);
    const key = sha256(bytes);
    // A crash mid-write leaves a partial file in tmp/ only.
    await writeFile(join(root, 'tmp', 'crashed-upload'), bytes.subarray(0, 1000));
    const reopened = new LocalBlobStore(root);
    expect(await reopened.has(key)).toBe(false);
    expect(await reopened.get(key)).toBeNull();
    expect(await reopened.put(bytes)).toEqual({ sha256: key, size: 4096 });
    expect((await store.get(key))!.equals(bytes)).toBe(true);
  });
});
