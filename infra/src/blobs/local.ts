import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobInfo, BlobStore } from '@paperlink/domain';

const HEX = /^[0-9a-f]{64}$/;
const PART = /^[0-9a-f]{2}$/;
/** Name of a derived file (`<sha256>.<name>` beside the blob). */
const DERIVED = /^[a-z0-9-]{1,32}$/;

export interface SweepReport {
  /** Files under a key that no receipt refers to, older than the safety age: removed. */
  removed: string[];
  /** Temporary files of interrupted writes, older than the safety age: removed. */
  removedTemporary: number;
  /** Files looked at (under a key). */
  scanned: number;
}

/**
 * Content-addressed files on local disk: `<root>/ab/cd/<sha256>`. A file is written to a
 * temporary name and renamed into place, so a crash never leaves a half-written blob under a
 * real key.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local-disk';
  /** While a sweep runs: keys written or re-stored since it began (never removed by it). */
  private touched: Set<string> | undefined;
  /** Keys the sweep is removing right now; a put of the same bytes waits, then writes them again. */
  private readonly removing = new Map<string, Promise<void>>();

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
    this.touched?.add(sha256);
    await this.removing.get(sha256);
    if (await this.has(sha256)) {
      // Stored again: the file is young again, so a later sweep gives its new receipt time to be recorded.
      const now = new Date();
      await utimes(path, now, now).catch(() => {});
      return { sha256, size: bytes.byteLength };
    }
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
    await this.deleteDerived(sha256);
  }

  private derivedPath(sha256: string, name: string): string {
    if (!DERIVED.test(name)) throw new Error(`not a derived file name: ${name}`);
    return `${this.pathOf(sha256)}.${name}`;
  }

  /** Removes the files derived from a blob (`<sha256>.<name>` beside it). */
  private async deleteDerived(sha256: string): Promise<void> {
    const path = this.pathOf(sha256);
    const dir = join(path, '..');
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name.startsWith(`${sha256}.`) && DERIVED.test(name.slice(65))) await rm(join(dir, name), { force: true });
    }
  }

  async getDerived(sha256: string, name: string): Promise<Buffer | null> {
    try {
      return await readFile(this.derivedPath(sha256, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** Written to a temporary name and renamed into place, like a blob (not flushed: it can be made again). */
  async putDerived(sha256: string, name: string, bytes: Uint8Array): Promise<void> {
    const path = this.derivedPath(sha256, name);
    mkdirSync(join(path, '..'), { recursive: true });
    const tmp = join(this.root, 'tmp', randomUUID());
    await writeFile(tmp, bytes);
    await rename(tmp, path);
  }

  /**
   * Removes what a crash left behind: files under a key that no receipt refers to (the bytes
   * were stored, the process died before the receipt was recorded) and temporary files of
   * interrupted writes, both only when older than `olderThanMs`. Younger files may belong to
   * an upload in flight (stored, receipt not yet recorded; a direct upload not yet committed).
   * A put during the sweep is never undone: its key is spared, or written again after removal.
   * @param referenced the keys among `keys` that a receipt refers to
   */
  async sweepOrphans(referenced: (keys: string[]) => Promise<Set<string>>, olderThanMs: number, now = Date.now()): Promise<SweepReport> {
    const cutoff = now - olderThanMs;
    const report: SweepReport = { removed: [], removedTemporary: 0, scanned: 0 };
    this.touched = new Set();
    try {
      const tmp = join(this.root, 'tmp');
      for (const name of await readdir(tmp).catch(() => [] as string[])) {
        const info = await stat(join(tmp, name)).catch(() => null);
        if (info?.isFile() && info.mtimeMs < cutoff) {
          await rm(join(tmp, name), { force: true });
          report.removedTemporary++;
        }
      }
      let batch: string[] = [];
      const flush = async () => {
        const refs = await referenced(batch);
        for (const key of batch) {
          if (refs.has(key) || this.touched!.has(key)) continue;
          const info = await stat(this.pathOf(key)).catch(() => null);
          if (!info || info.mtimeMs >= cutoff || this.touched!.has(key)) continue;
          const removal = rm(this.pathOf(key), { force: true }).then(() => this.deleteDerived(key));
          this.removing.set(key, removal);
          try {
            await removal;
          } finally {
            this.removing.delete(key);
          }
          report.removed.push(key);
        }
        batch = [];
      };
      for (const a of await readdir(this.root).catch(() => [] as string[])) {
        if (!PART.test(a)) continue;
        for (const b of await readdir(join(this.root, a)).catch(() => [] as string[])) {
          if (!PART.test(b)) continue;
          for (const key of await readdir(join(this.root, a, b)).catch(() => [] as string[])) {
            if (!HEX.test(key) || !key.startsWith(a + b)) continue;
            report.scanned++;
            const info = await stat(join(this.root, a, b, key)).catch(() => null);
            if (!info?.isFile() || info.mtimeMs >= cutoff) continue;
            batch.push(key);
            if (batch.length >= 2000) await flush();
          }
        }
      }
      if (batch.length > 0) await flush();
      return report;
    } finally {
      this.touched = undefined;
    }
  }

  async close(): Promise<void> {}
}
