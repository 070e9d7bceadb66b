import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonByHand } from './chain';

/** Values per property (fast-check prints the seed and the smallest failing value). */
const RUNS = Number(process.env.CANONICAL_JSON_RUNS ?? 3_000);

describe('canonicalJson: the sorted copy through JSON.stringify equals the by-hand form', () => {
  it('on any value fast-check makes (keys in any order and script, boxed values, maps, dates, bigint, sparse arrays, null prototypes)', () => {
    const anything = fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withBigInt: true, withDate: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withObjectString: true, maxDepth: 4 });
    fc.assert(fc.property(anything, (v) => canonicalJson(v) === canonicalJsonByHand(v)), { numRuns: RUNS });
  });

  it('on JSON values, equals RFC 8785 (the canonicalize package)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const json = canonicalJson(v);
        // The package refuses lone surrogates, which JSON.stringify writes escaped.
        return /\\ud[89a-f]/i.test(json) || json === canonicalize(v);
      }),
      { numRuns: RUNS },
    );
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
