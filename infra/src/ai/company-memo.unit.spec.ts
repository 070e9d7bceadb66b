import { describe, expect, it } from 'vitest';
import { companyMemo } from './company-memo';

function setup() {
  const positions = new Map<string, number>([['c1', 10], ['c2', 20]]);
  const read = { projected: 100 };
  const memo = companyMemo(async (c) => positions.get(c) ?? 0, () => read.projected, 3);
  let runs = 0;
  const compute = (value: string) => async () => {
    runs++;
    return value;
  };
  return { positions, read, memo, compute, runs: () => runs };
}

describe('companyMemo', () => {
  it('keeps an answer until the company has a new event, per company and key', async () => {
    const s = setup();
    expect(await s.memo('c1', 'k', s.compute('a'))).toBe('a');
    expect(await s.memo('c1', 'k', s.compute('b'))).toBe('a');
    expect(await s.memo('c1', 'other', s.compute('c'))).toBe('c');
    expect(await s.memo('c2', 'k', s.compute('d'))).toBe('d');
    expect(s.runs()).toBe(3);
    s.positions.set('c1', 11);
    expect(await s.memo('c1', 'k', s.compute('e'))).toBe('e');
    expect(await s.memo('c2', 'k', s.compute('f'))).toBe('d');
  });

  it('does not keep an answer read while the read models were behind the company', async () => {
    const s = setup();
    s.read.projected = 5; // behind c1's position 10
    expect(await s.memo('c1', 'k', s.compute('stale'))).toBe('stale');
    s.read.projected = 10;
    expect(await s.memo('c1', 'k', s.compute('current'))).toBe('current');
    expect(await s.memo('c1', 'k', s.compute('again'))).toBe('current');
  });

  it('shares one computation between calls at the same position, and keeps no failure', async () => {
    const s = setup();
    let release!: () => void;
    let runs = 0;
    const slow = async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
      return 'x';
    };
    const both = Promise.all([s.memo('c1', 'k', slow), s.memo('c1', 'k', slow)]);
    await new Promise((r) => setImmediate(r));
    release();
    expect(await both).toEqual(['x', 'x']);
    expect(runs).toBe(1);
    await expect(s.memo('c2', 'k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await s.memo('c2', 'k', s.compute('ok'))).toBe('ok');
  });

  it('keeps at most `max` answers, dropping the least recently used', async () => {
    const s = setup();
    for (const k of ['a', 'b', 'c']) await s.memo('c1', k, s.compute(k));
    await s.memo('c1', 'a', s.compute('a2')); // a used again
    await s.memo('c1', 'd', s.compute('d')); // b dropped
    expect(await s.memo('c1', 'b', s.compute('b2'))).toBe('b2');
    expect(await s.memo('c1', 'a', s.compute('a3'))).toBe('a');
  });
});
