import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '@paperlink/domain';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** One suite every blob store adapter must pass. */
export function blobStoreContract(name: string, make: () => Promise<BlobStore>): void {
  describe(`blob store contract: ${name}`, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await make();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('put returns the SHA-256 of the bytes and their size', async () => {
      const bytes = randomBytes(1234);
      const info = await store.put(bytes);
      expect(info).toEqual({ sha256: sha256(bytes), size: 1234 });
      expect(info.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await store.has(info.sha256)).toBe(true);
    });

    it('stores the same bytes once: a second put gives the same key and no error', async () => {
      const bytes = randomBytes(500);
      const first = await store.put(bytes);
      const second = await store.put(Uint8Array.from(bytes));
      expect(second).toEqual(first);
      expect(await store.get(first.sha256)).toEqual(Buffer.from(bytes));
      // Stored once: one delete removes the bytes for good.
      await store.delete(first.sha256);
      expect(await store.has(first.sha256)).toBe(false);
    });

    it('get returns the identical bytes, small, empty and large (3 MB)', async () => {
      const small = Buffer.from('%PDF-1.4 receipt\n\u00e9\u20ac', 'utf8');
      const empty = new Uint8Array(0);
      const large = randomBytes(3 * 1024 * 1024);
      for (const bytes of [small, empty, large]) {
        const { sha256: key, size } = await store.put(bytes);
        expect(size).toBe(bytes.byteLength);
        const back = await store.get(key);
        expect(Buffer.isBuffer(back)).toBe(true);
        expect(back!.byteLength).toBe(bytes.byteLength);
        expect(back!.equals(Buffer.from(bytes))).toBe(true);
        expect(sha256(back!)).toBe(key);
      }
    });

    it('stores a view into a larger buffer by its own bytes only', async () => {
      const backing = randomBytes(4096);
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 100, 200);
      const info = await store.put(view);
      expect(info).toEqual({ sha256: sha256(view), size: 200 });
      expect((await store.get(info.sha256))!.equals(Buffer.from(view))).toBe(true);
    });

    it('an unknown key gives null and false', async () => {
      const unknown = sha256(randomBytes(64));
      expect(await store.get(unknown)).toBeNull();
      expect(await store.has(unknown)).toBe(false);
      await expect(store.delete(unknown)).resolves.toBeUndefined();
    });

    it('refuses a key that is not a SHA-256 hex digest', async () => {
      await expect(store.get('../../etc/passwd')).rejects.toThrow();
      expect(await store.has('not-a-key')).toBe(false);
    });

    it('delete then get gives null, and the bytes can be stored again', async () => {
      const bytes = randomBytes(2048);
      const { sha256: key } = await store.put(bytes);
      await store.delete(key);
      expect(await store.get(key)).toBeNull();
      expect(await store.has(key)).toBe(false);
      await store.delete(key); // deleting twice is harmless
      expect(await store.put(bytes)).toEqual({ sha256: key, size: 2048 });
      expect((await store.get(key))!.equals(bytes)).toBe(true);
    });

    it('keys are content addresses: different bytes give different keys, the same bytes the same key', async () => {
      const a = Buffer.from('receipt A');
      const b = Buffer.from('receipt B');
      const ka = await store.put(a);
      const kb = await store.put(b);
      expect(ka.sha256).not.toBe(kb.sha256);
      expect((await store.get(ka.sha256))!.toString()).toBe('receipt A');
      expect((await store.get(kb.sha256))!.toString()).toBe('receipt B');
      // A fresh copy of the same bytes finds the stored blob by its key.
      expect(await store.has(sha256(Buffer.from('receipt A')))).toBe(true);
    });

    it("keeps a file derived from a blob beside it (a receipt's print copy): replaced by a later put, removed with the blob", async () => {
      const bytes = randomBytes(3000);
      const { sha256: key } = await store.put(bytes);
      expect(await store.getDerived(key, 'print-v1')).toBeNull();
      await store.putDerived(key, 'print-v1', Buffer.from('first copy'));
      expect((await store.getDerived(key, 'print-v1'))!.toString()).toBe('first copy');
      await store.putDerived(key, 'print-v1', Buffer.from('second copy'));
      expect((await store.getDerived(key, 'print-v1'))!.toString()).toBe('second copy');
      // The blob itself is untouched, and a derived file is not a blob of its own.
      expect((await store.get(key))!.equals(bytes)).toBe(true);
      await expect(store.getDerived(key, '../x')).rejects.toThrow();
      await store.delete(key);
      expect(await store.getDerived(key, 'print-v1')).toBeNull();
    });

    it('concurrent puts of the same bytes all succeed with the same key', async () => {
      const bytes = randomBytes(600 * 1024);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.put(bytes)));
      expect(new Set(results.map((r) => r.sha256))).toEqual(new Set([sha256(bytes)]));
      expect(results.every((r) => r.size === bytes.byteLength)).toBe(true);
      expect((await store.get(sha256(bytes)))!.equals(bytes)).toBe(true);
      await store.delete(sha256(bytes));
      expect(await store.has(sha256(bytes))).toBe(false);
    });
  });
}
