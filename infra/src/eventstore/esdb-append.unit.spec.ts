import { describe, expect, it } from 'vitest';
import type { AppendResult, ExpectedRevision } from '@paperlink/domain';
import { appendInChunks, eventSize, EventTooLargeError, sendWithRetries, splitBySize, type SizedEvent } from './esdb-append';

describe('eventSize: what EventStoreDB counts against MaxAppendSize (Event.SizeOnDisk)', () => {
  it('is the UTF-8 bytes of the data and metadata JSON plus twice the type length', () => {
    const e = { type: 'Added', data: { n: 1 }, metadata: { requestId: 'r' } };
    // {"n":1} = 7 bytes, {"requestId":"r"} = 17 bytes, 'Added' = 5 UTF-16 units, counted twice.
    expect(eventSize(e)).toBe(7 + 17 + 10);
  });

  it('counts characters outside ASCII by their UTF-8 bytes, as the client encodes them', () => {
    // "é" is two bytes, "€" three, "😀" four (a surrogate pair: two UTF-16 units, one code point).
    expect(eventSize({ type: 'T', data: 'é€😀' })).toBe(2 + (2 + 3 + 4) + 2);
  });

  it('counts nothing for metadata the client leaves out', () => {
    expect(eventSize({ type: 'T', data: null })).toBe(4 + 2);
    expect(eventSize({ type: 'T', data: null, metadata: undefined })).toBe(6);
  });
});

describe('splitBySize: chunks the server takes whole', () => {
  const LIMIT = 1000;

  it('keeps events that add up to exactly the limit in one chunk (the server refuses only more)', () => {
    expect(splitBySize([400, 600], LIMIT)).toEqual([[0, 2]]);
    expect(splitBySize([LIMIT], LIMIT)).toEqual([[0, 1]]);
  });

  it('starts a new chunk at the first event that would pass the limit by one byte', () => {
    expect(splitBySize([400, 601], LIMIT)).toEqual([[0, 1], [1, 2]]);
    expect(splitBySize([999, 1, 1], LIMIT)).toEqual([[0, 2], [2, 3]]);
    expect(splitBySize([1, LIMIT, 1], LIMIT)).toEqual([[0, 1], [1, 2], [2, 3]]);
  });

  it('splits many events into as few chunks as their order allows, each within the limit, covering every event once', () => {
    const sizes = Array.from({ length: 500 }, (_, i) => 1 + ((i * 37) % 300));
    const chunks = splitBySize(sizes, LIMIT);
    expect(chunks[0]![0]).toBe(0);
    expect(chunks[chunks.length - 1]![1]).toBe(sizes.length);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]![0]).toBe(chunks[i - 1]![1]);
    for (const [a, b] of chunks) {
      const total = sizes.slice(a, b).reduce((s, n) => s + n, 0);
      expect(total).toBeLessThanOrEqual(LIMIT);
      // Greedy: the next event would not have fitted.
      if (b < sizes.length) expect(total + sizes[b]!).toBeGreaterThan(LIMIT);
    }
  });

  it('refuses an event over the limit on its own with a 413 that names its size and the limit', () => {
    expect(() => splitBySize([10, LIMIT + 1], LIMIT, () => ({ streamId: 'import-1', type: 'TransactionsImported' }))).toThrow(EventTooLargeError);
    try {
      splitBySize([LIMIT + 1], LIMIT, () => ({ streamId: 'import-1', type: 'TransactionsImported' }));
    } catch (error) {
      expect(error).toMatchObject({ status: 413, code: 'event_too_large', details: { streamId: 'import-1', index: 0, type: 'TransactionsImported', size: LIMIT + 1, limit: LIMIT } });
      expect((error as Error).message).toContain(`${LIMIT + 1} bytes`);
    }
  });

  it('has no chunk for no events', () => {
    expect(splitBySize([], LIMIT)).toEqual([]);
  });
});

/** A stream on a server with a MaxAppendSize: refuses a larger append, checks the expected revision. */
function stream(limit: number) {
  const stored: SizedEvent[] = [];
  const calls: Array<{ count: number; expected: ExpectedRevision; bytes: number }> = [];
  const append = async (chunk: SizedEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
    const bytes = chunk.reduce((s, e) => s + eventSize(e), 0);
    calls.push({ count: chunk.length, expected, bytes });
    if (bytes > limit) throw new Error('maximum append size exceeded');
    const current = stored.length - 1;
    if (!(expected === 'any' || (expected === 'no_stream' && current === -1) || expected === current)) throw new Error(`wrong expected version ${String(expected)} (current ${current})`);
    stored.push(...chunk);
    return { nextExpectedRevision: stored.length - 1, position: stored.length * 10 };
  };
  return { stored, calls, append };
}

describe('appendInChunks', () => {
  /** An import's events: `count` events of about `bytes` each. */
  const rows = (count: number, bytes: number): SizedEvent[] =>
    Array.from({ length: count }, (_, i) => ({ type: 'TransactionsImported', data: { part: i, rows: 'x'.repeat(bytes) }, metadata: { requestId: 'r1' } }));

  it('appends 200,000 rows (200 events of 1,000 rows, about 57 MB) in chunks under 1 MiB, each at the revision the one before returned', async () => {
    const limit = 1024 * 1024;
    const s = stream(limit);
    const events = rows(200, 285_000);
    const result = await appendInChunks('import-1', events, 'no_stream', limit, s.append);
    expect(s.stored).toEqual(events);
    expect(result).toEqual({ nextExpectedRevision: 199, position: 2000 });
    expect(s.calls.length).toBe(67); // three such events fit in 1 MiB
    expect(s.calls.every((c) => c.bytes <= limit)).toBe(true);
    expect(s.calls.map((c) => c.expected)).toEqual(['no_stream', ...s.calls.slice(1).map((_, i) => s.calls.slice(0, i + 1).reduce((n, c) => n + c.count, 0) - 1)]);
  });

  it('sends an append under the limit as it is, once', async () => {
    const s = stream(1000);
    const events = rows(3, 50);
    await appendInChunks('s-1', events, 4, 1000, async (chunk, expected) => {
      s.calls.push({ count: chunk.length, expected, bytes: 0 });
      return { nextExpectedRevision: 7, position: 1 };
    });
    expect(s.calls).toEqual([{ count: 3, expected: 4, bytes: 0 }]);
  });

  it('refuses before sending anything when one event is over the limit', async () => {
    const s = stream(1000);
    await expect(appendInChunks('import-1', [...rows(2, 10), ...rows(1, 2000)], 'no_stream', 1000, s.append)).rejects.toBeInstanceOf(EventTooLargeError);
    expect(s.calls).toEqual([]);
  });

  it('stops at the first failure, leaving the chunks before it written', async () => {
    const s = stream(1000);
    let n = 0;
    const failing = async (chunk: SizedEvent[], expected: ExpectedRevision) => {
      if (++n === 2) throw new Error('connection lost');
      return s.append(chunk, expected);
    };
    await expect(appendInChunks('import-1', rows(4, 400), 'no_stream', 1000, failing)).rejects.toThrow('connection lost');
    expect(s.stored).toHaveLength(2);
  });
});

describe('sendWithRetries', () => {
  const transient = (e: unknown) => (e as { type?: string }).type === 'deadline-exceeded';

  it('sends again, as it was, after a failure without an answer, waiting longer each time up to the cap', async () => {
    const waits: number[] = [];
    let sends = 0;
    const out = await sendWithRetries(async () => {
      if (++sends < 4) throw Object.assign(new Error('deadline'), { type: 'deadline-exceeded' });
      return 'written';
    }, transient, { attempts: 5, baseMs: 100, maxMs: 250, sleep: async (ms) => void waits.push(ms) });
    expect(out).toBe('written');
    expect(waits).toEqual([100, 200, 250]);
  });

  it('gives up after the attempts, and never retries an answer (a conflict)', async () => {
    let sends = 0;
    const always = () => sendWithRetries(async () => {
      sends++;
      throw Object.assign(new Error('deadline'), { type: 'deadline-exceeded' });
    }, transient, { attempts: 3, baseMs: 1, maxMs: 1, sleep: async () => {} });
    await expect(always()).rejects.toThrow('deadline');
    expect(sends).toBe(3);
    sends = 0;
    await expect(sendWithRetries(async () => {
      sends++;
      throw new Error('wrong expected version');
    }, transient, { attempts: 3, baseMs: 1, maxMs: 1, sleep: async () => {} })).rejects.toThrow('wrong expected version');
    expect(sends).toBe(1);
  });
});
