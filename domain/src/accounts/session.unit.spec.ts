import { describe, expect, it } from 'vitest';
import { refreshIssuedAt, refreshOutcome, sessionDecider, type SessionEvent, type SessionState } from './session';

const started: SessionEvent = { type: 'SessionStarted', data: { sessionId: 's1', userId: 'u1', startedAt: '2026-11-24T10:00:00.000Z', expiresAt: '2026-12-24T10:00:00.000Z' } };
const fold = (events: SessionEvent[]): SessionState => events.reduce((s, e) => sessionDecider.evolve(s, e), sessionDecider.initialState());

describe('a refresh', () => {
  it('hands a parallel refresh inside the grace the winner\'s generation and issue time, whatever second it comes in', () => {
    const first = sessionDecider.decide({ type: 'RefreshSession', generation: 0, now: '2026-11-24T10:05:00.980Z', expiresAt: '2026-12-24T10:05:00.980Z' }, fold([started]));
    expect(refreshOutcome(fold([started]), first)).toBe(1);
    expect(refreshIssuedAt(fold([started]), first)).toBe('2026-11-24T10:05:00.980Z');
    const after = fold([started, ...first]);
    // The other tab, with the same (previous) token, 40 ms later: the next second.
    const parallel = sessionDecider.decide({ type: 'RefreshSession', generation: 0, now: '2026-11-24T10:05:01.020Z', expiresAt: '2026-12-24T10:05:01.020Z' }, after);
    expect(parallel).toEqual([]);
    expect(refreshOutcome(after, parallel)).toBe(1);
    expect(refreshIssuedAt(after, parallel)).toBe('2026-11-24T10:05:00.980Z');
  });

  it('names no issue time when the session was revoked (an old token came back)', () => {
    const after = fold([started, ...sessionDecider.decide({ type: 'RefreshSession', generation: 0, now: '2026-11-24T10:05:00.000Z', expiresAt: '2026-12-24T10:05:00.000Z' }, fold([started]))]);
    const late = sessionDecider.decide({ type: 'RefreshSession', generation: 0, now: '2026-11-24T10:06:00.000Z', expiresAt: '2026-12-24T10:06:00.000Z' }, after);
    expect(late.map((e) => e.type)).toEqual(['SessionRevoked']);
    expect(refreshOutcome(after, late)).toBeUndefined();
    expect(refreshIssuedAt(after, late)).toBeUndefined();
  });
});
