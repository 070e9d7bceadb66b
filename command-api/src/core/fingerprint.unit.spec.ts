import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonical, exceedsDepth, fileDigest, fingerprintKey, keyedFingerprint } from './fingerprint';

const key = fingerprintKey('a-signing-secret-of-at-least-32-characters!');

describe('request fingerprints', () => {
  it('leave secret fields out at any depth, and nothing else', () => {
    const text = canonical(['POST', '/api/auth/login', { email: 'a@b.c', password: 'hunter2-secret', nested: { newPassword: 'x1', refreshToken: 'y2', keep: 1 } }]);
    expect(text).not.toMatch(/hunter2|x1|y2|password|Token/i);
    expect(text).toContain('a@b.c');
    expect(text).toContain('"keep":1');
  });

  it('are keyed: another key gives another fingerprint, and none is the plain SHA-256 of the text', () => {
    const parts = ['PUT', '/api/x', 'u1', 'c1', { a: 1 }];
    const other = fingerprintKey('another-signing-secret-of-32-characters!!');
    expect(keyedFingerprint(key, parts)).not.toBe(keyedFingerprint(other, parts));
    expect(keyedFingerprint(key, parts)).not.toBe(createHash('sha256').update(canonical(parts)).digest('base64url'));
    expect(keyedFingerprint(key, parts)).toBe(keyedFingerprint(key, ['PUT', '/api/x', 'u1', 'c1', { a: 1 }]));
  });

  it('do not depend on key order, and do depend on values', () => {
    expect(keyedFingerprint(key, [{ a: 1, b: 2 }])).toBe(keyedFingerprint(key, [{ b: 2, a: 1 }]));
    expect(keyedFingerprint(key, [{ a: 1, b: 2 }])).not.toBe(keyedFingerprint(key, [{ a: 1, b: 3 }]));
  });

  it('refuse hostile nesting with a 400 instead of overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(() => canonical([deep])).toThrow(expect.objectContaining({ status: 400, code: 'too_deep' }));
    expect(exceedsDepth(deep, 32)).toBe(true);
    let ok: unknown = 1;
    for (let i = 0; i < 32; i++) ok = [ok];
    expect(exceedsDepth(ok, 32)).toBe(false);
    expect(exceedsDepth([ok], 32)).toBe(true);
  });

  it('hash files off the request thread to the same SHA-256 as node:crypto', async () => {
    const bytes = Buffer.from('some file bytes');
    expect(await fileDigest(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
