import { describe, expect, it, vi } from 'vitest';
import { runBatches, type BatchProgress } from './batches';

describe('duplicate batches of 100', () => {
  it('asks batch after batch from where the last ended and stops on a short batch', async () => {
    const answers = [{ processed: 100, duplicatesFound: 3 }, { processed: 100, duplicatesFound: 0 }, { processed: 42, duplicatesFound: 2 }];
    const batch = vi.fn(async (_offset: number) => answers.shift()!);
    const seen: BatchProgress[] = [];
    const final = await runBatches(batch, (p) => seen.push(p));
    expect(batch.mock.calls.map((c) => c[0])).toEqual([0, 100, 200]);
    expect(final).toEqual({ batches: 3, processed: 242, duplicatesFound: 5, total: null, done: true });
    expect(seen.map((p) => p.processed)).toEqual([100, 200, 242]);
  });

  it('knows the total when the server says what remains, and ends when nothing does', async () => {
    const answers = [{ processed: 100, duplicatesFound: 1, remaining: 100 }, { processed: 100, duplicatesFound: 1, remaining: 0 }];
    const seen: BatchProgress[] = [];
    const final = await runBatches(async () => answers.shift()!, (p) => seen.push(p));
    expect(seen[0]).toMatchObject({ processed: 100, total: 200, done: false });
    expect(final).toMatchObject({ batches: 2, processed: 200, duplicatesFound: 2, total: 200, done: true });
  });

  it('stops when asked, between batches', async () => {
    let stop = false;
    const final = await runBatches(async () => { stop = true; return { processed: 100, duplicatesFound: 0 }; }, () => {}, () => stop);
    expect(final).toMatchObject({ batches: 1, done: false });
  });
});
