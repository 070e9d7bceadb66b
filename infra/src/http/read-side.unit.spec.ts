import { describe, expect, it } from 'vitest';
import { MIN_POSITION_WAIT_MS, minPosition, minPositionWaitMs } from './read-side';

describe('X-Min-Position and Prefer: wait', () => {
  it('takes a whole positive position only', () => {
    expect(minPosition('42')).toBe(42);
    expect(minPosition(' 7 ')).toBe(7);
    for (const bad of [undefined, '', '0', '-3', '1.5', '1e6', 'abc', '99999999999999999', '12;DROP']) expect(minPosition(bad)).toBeNull();
  });

  it('waits at most 5 s, less when the client prefers', () => {
    expect(minPositionWaitMs(undefined)).toBe(MIN_POSITION_WAIT_MS);
    expect(minPositionWaitMs('respond-async')).toBe(MIN_POSITION_WAIT_MS);
    expect(minPositionWaitMs('wait=1')).toBe(1000);
    expect(minPositionWaitMs('respond-async, wait=0.25')).toBe(250);
    expect(minPositionWaitMs('wait=0')).toBe(0);
    expect(minPositionWaitMs('wait="2"')).toBe(2000);
    expect(minPositionWaitMs('wait=3600')).toBe(MIN_POSITION_WAIT_MS);
  });
});
