/**
 * The product's own password hasher. In-process tests hash with a keyed HMAC unless they pass
 * one (test/support/harness.ts `testHasher`), so this is where the product's default is held to
 * argon2id with OWASP's minimum: the server started without a hasher, as `make start` starts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { userStream } from '@paperlink/domain';
import { createPaperlink, type Paperlink } from '../../infra/src/app';
import { loadConfig } from '../../infra/src/config';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-hashing-'));
let paperlink: Paperlink | undefined;
afterAll(async () => {
  await paperlink?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('passwords as the product hashes them (no hasher passed)', () => {
  it('records an argon2id hash (19 MiB, 2 iterations, 1 lane) with a salt of its own, never the password, and signs in with it', async () => {
    paperlink = await createPaperlink(loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'no-web') }));
    const http = request(paperlink.app);
    const password = 'Heron-Basalt-7351!';
    const hashes: string[] = [];
    for (const email of ['hash-a@example.com', 'hash-b@example.com']) {
      const reg = await http.post('/api/auth/register').send({ firstName: 'Ha', lastName: 'Sh', email, password, companyName: `Co ${email}` });
      expect(reg.status).toBe(201);
      const [registered] = await paperlink.adapters.events.readStream(userStream(reg.body.user.id as string));
      expect(registered!.type).toBe('UserRegistered');
      const hash = (registered!.data as { passwordHash: string }).passwordHash;
      const phc = /^\$argon2id\$v=19\$([a-z]=\d+(?:,[a-z]=\d+)*)\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/.exec(hash);
      expect(phc, hash.slice(0, 40)).not.toBeNull();
      expect(Object.fromEntries(phc![1]!.split(',').map((kv) => kv.split('=')))).toEqual({ m: '19456', t: '2', p: '1' });
      expect(hash).not.toContain(password);
      hashes.push(hash);
      expect((await http.post('/api/auth/login').send({ email, password })).status).toBe(200);
      expect((await http.post('/api/auth/login').send({ email, password: 'Heron-Basalt-7351?' })).status).toBe(401);
    }
    // The same password twice: two salts, two hashes.
    expect(hashes[0]).not.toBe(hashes[1]);
  }, 60_000);
});
