import { describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '@paperlink/domain';
import { lastRevision } from './ledger';

/** A stream of `length` events, counting the point reads made of it. */
function streamOf(length: number) {
  const reads = { count: 0 };
  const events = {
    async readStream(_streamId: string, options: { fromRevision?: number; maxCount?: number } = {}) {
      reads.count++;
      expect(options.maxCount).toBe(1);
      const from = options.fromRevision ?? 0;
      return from >= 0 && from < length ? [{ revision: from } as RecordedEvent] : [];
    },
  } as unknown as EventStore;
  return { events, reads };
}

describe('lastRevision', () => {
  it('finds the last revision of empty, short and long streams from any hint, in logarithmic reads', async () => {
    for (const length of [0, 1, 2, 3, 7, 8, 9, 100, 1000, 65_537]) {
      for (const hint of [-1, 0, Math.floor(length / 2), length - 1, length, length + 50]) {
        const { events, reads } = streamOf(length);
        expect(await lastRevision(events, 'imports-c', hint)).toBe(length - 1);
        expect(reads.count).toBeLessThanOrEqual(2 * Math.log2(length + 2) + 3);
      }
    }
  });

  it('takes two reads when nothing was appended since the hint', async () => {
    const { events, reads } = streamOf(5000);
    expect(await lastRevision(events, 'imports-c', 4999)).toBe(4999);
    expect(reads.count).toBe(2);
  });
});
