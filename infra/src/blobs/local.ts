import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobInfo, BlobStore } from '@paperlink/domain';

const HEX = /^[0-9a-f]{64}$/;

/**
 * Content-addressed files on local disk: `<root>/ab/cd/<sha256>`. A file is written to a
 * temporary name and renamed into place, so a crash never leaves a half-written blob under a
 * real key.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local-disk';

  constructor(private readonly root: string) {
    mkdirSync(join(root, 'tmp'), { recursive: true });
  }

  private pathOf(sha256: string): string {
    if (!HEX.test(sha256)) throw new Error(`not a SHA-256 key: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Uint8Array): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = this.pathOf(sha256);
    if (await this.has(sha256)) return { sha256, size: bytes.byteLength };
    mkdirSync(join(path, '..'), { recursive: true });
    const tmp = join(this.root, 'tmp', randomUUID());
    await writeFile(tmp, bytes, { flush: true });
    await rename(tmp, path);
    return { sha256, size: bytes.byteLength };
  }

  async get(sha256: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(sha256));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async has(sha256: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(sha256))).isFile();
    } catch {
      return false;
    }
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async close(): Promise<void> {}
}
