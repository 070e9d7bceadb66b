import { describe, expect, it } from 'vitest';
import { compileWhere } from './sql-filter';

/**
 * A numeric range bounded on both sides needs no guard against text (text sorts above every
 * number, so `<= 10` keeps it out): without the guard the planner bounds the index range by the
 * upper value, not by `< ''` (an auto-match amount window read every amount above it, ADR 0029).
 */
describe('range conditions', () => {
  const where = (cond: unknown) => compileWhere({ a: cond } as Record<string, unknown>, new Map()).sql;
  it('leaves the type guard out when the other side bounds the range with the same type', () => {
    expect(where({ $gte: 1, $lte: 10 })).toEqual({ sql: "(json_extract(doc, '$.a') >= ? AND json_extract(doc, '$.a') <= ?)", params: [1, 10] });
    expect(where({ $gt: 'a', $lt: 'm' }).sql).not.toContain("''");
  });
  it('keeps it for a range open on one side or bounded by another type', () => {
    expect(where({ $gte: 1 }).sql).toContain("< ''");
    expect(where({ $lte: 'm' }).sql).toContain(">= ''");
    expect(where({ $gte: 1, $lte: 'z' }).sql).toContain("< ''");
  });
});
