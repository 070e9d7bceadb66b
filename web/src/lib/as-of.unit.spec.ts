import { afterEach, describe, expect, it } from 'vitest';
import { asOfFor, useAsOf } from './as-of';

describe('asOfFor (the reads the as-of picker applies to)', () => {
  afterEach(() => useAsOf.getState().setAsOf(null));

  it('adds the moment to the transactions, receipts and matches reads only, and only while it is on', () => {
    expect(asOfFor('get', '/transactions')).toBeNull();
    useAsOf.getState().setAsOf('2026-11-23T18:00:00.000Z');
    for (const url of ['/transactions', '/transactions/abc', 'transactions?page=2', '/receipts', '/receipts/abc', '/matches', '/matches/pending']) {
      expect(asOfFor('get', url), url).toBe('2026-11-23T18:00:00.000Z');
    }
    for (const url of ['/receipts/abc/view', '/matches/stats', '/analytics/dashboard', '/transactions/abc/history', '/masterdata/categories']) {
      expect(asOfFor('get', url), url).toBeNull();
    }
    expect(asOfFor('put', '/transactions/abc')).toBeNull();
    expect(asOfFor('post', '/matches')).toBeNull();
  });
});
