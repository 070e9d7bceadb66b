import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonByHand } from './chain';

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEY_CHARS = ['a', 'b', 'Z', '_', '€', '\u0080', 'é', '\ud83d\ude00', ' ', '"', '\\', '\n', '1', '0', '-', '.'];
const STRINGS = ['', 'plain', 'tab\t', 'quote"', 'back\\slash', 'line\u2028sep', '\ud800', 'ü€😀', '\u0000\u001f', '<script>'];
const NUMBERS = [0, -0, 1, -1.5, 1e21, 1e-7, 123.456, 2 ** 53, -(2 ** 31), Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, 0.1 + 0.2];

function value(next: () => number, depth: number): unknown {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const r = next();
  if (depth > 3 || r < 0.35) {
    const leaf = next();
    if (leaf < 0.3) return pick(STRINGS);
    if (leaf < 0.6) return pick(NUMBERS);
    if (leaf < 0.7) return next() < 0.5;
    if (leaf < 0.8) return null;
    if (leaf < 0.85) return undefined;
    if (leaf < 0.9) return new Date(Math.floor(next() * 2e12));
    return pick(STRINGS) + String(Math.floor(next() * 1000));
  }
  if (r < 0.6) return Array.from({ length: Math.floor(next() * 5) }, () => value(next, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(next() * 6);
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(next() * 4);
    let key = '';
    for (let k = 0; k < len; k++) key += pick(KEY_CHARS);
    o[key] = value(next, depth + 1);
  }
  return o;
}

describe('canonicalJson: the sorted copy through JSON.stringify equals the by-hand form', () => {
  it('on 5,000 random values (keys in any order and script, numbers, dates, undefined, nesting)', () => {
    for (let seed = 1; seed <= 5_000; seed++) {
      const v = value(random(seed), 0);
      const byHand = canonicalJsonByHand(v);
      expect(canonicalJson(v), `seed ${seed}`).toBe(byHand);
      // And RFC 8785 itself, for what JSON can carry (what JSON drops or converts, as JSON.stringify
      // does; the package refuses lone surrogates, which JSON.stringify writes escaped).
      const json = JSON.stringify(v);
      if (json !== undefined && !/\\ud[89a-f]/i.test(json)) expect(byHand, `seed ${seed}`).toBe(canonicalize(JSON.parse(json)));
    }
  });

  it('on the shapes the copy cannot stand for: array-index keys, boxed primitives, toJSON objects, bigint, deep nesting', () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 300; i++) at = (at.n = { z: i, a: i }) as Record<string, unknown>;
    const odd: unknown[] = [
      { 2: 'two', 10: 'ten', b: 1, a: 2 },
      { '01': 1, '1': 2, '-1': 3, '1.5': 4, '4294967295': 5 },
      [new Number(5), new String('ab'), new Boolean(false)],
      { when: new Date('2024-01-01T00:00:00Z'), custom: { toJSON: () => ({ z: 1, a: 2 }) } },
      { f: () => 1, s: Symbol('x'), u: undefined, list: [undefined, () => 1, Symbol('y')] },
      new Map([['a', 1]]),
      JSON.parse('{"b":1,"__proto__":{"y":1,"x":2},"a":[{"__proto__":3,"c":1}]}') as unknown,
      JSON.parse('{"a":1,"__proto__":{"x":2}}') as unknown,
      Object.assign(Object.create({ inherited: 1 }) as object, { own: 2, a: 1 }),
      deep,
      undefined,
      () => 1,
      'top',
      -0,
    ];
    for (const v of odd) expect(canonicalJson(v)).toBe(canonicalJsonByHand(v));
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: { y: 1, x: 2 } })).toBe('{"a":{"x":2,"y":1},"b":[{"c":2,"d":1}]}');
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"y":1,"x":2}}'))).toBe('{"__proto__":{"x":2,"y":1},"b":1}');
    expect(canonicalJson(1n as unknown)).toBe(canonicalJsonByHand(1n as unknown));
  });

  it('leaves the value it was given as it was', () => {
    const v = { b: { d: 1, c: [{ f: 1, e: 2 }] }, a: 1 };
    const before = JSON.stringify(v);
    canonicalJson(v);
    expect(JSON.stringify(v)).toBe(before);
    expect(Object.keys(v)).toEqual(['b', 'a']);
  });
});
