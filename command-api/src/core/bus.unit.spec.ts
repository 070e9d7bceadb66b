import { describe, expect, it, vi } from 'vitest';
import { PreconditionFailedError, type Decider, type EventStore, type RecordedEvent } from '@paperlink/domain';
import { CommandBus } from './bus';

type Added = { type: 'Added'; data: { n: number } };
const counter: Decider<number, { type: 'Add'; n: number }, Added> = {
  initialState: () => 0,
  evolve: (total, e) => total + e.data.n,
  decide: (c, total) => {
    if (total + c.n > 10) throw new Error('too much');
    return c.n === 0 ? [] : [{ type: 'Added', data: { n: c.n } }];
  },
};

/** A store holding one stream with `ns` (only reads are needed by handle). */
function busWith(ns: number[]): CommandBus {
  const recorded = ns.map((n, revision): RecordedEvent => ({ id: `e${revision}`, type: 'Added', data: { n }, metadata: { occurredAt: '2026-01-01T00:00:00Z' }, streamId: 'counter-1', revision, position: revision + 1 }));
  const events = { readStream: async (id: string) => (id === 'counter-1' ? recorded : []) } as unknown as EventStore;
  return new CommandBus(events);
}

describe('CommandBus.handle', () => {
  it('given no stream, decides on the initial state and appends expecting no stream', async () => {
    const h = await busWith([]).handle('counter-1', counter, { type: 'Add', n: 3 });
    expect(h).toMatchObject({ state: 0, after: 3, revision: 0, events: [{ type: 'Added', data: { n: 3 } }] });
    expect(h.append).toEqual({ streamId: 'counter-1', expectedRevision: 'no_stream', events: h.events });
  });

  it('given events, folds them, builds the command from the state, and expects the last revision', async () => {
    const h = await busWith([2, 4]).handle('counter-1', counter, (total) => ({ type: 'Add' as const, n: 10 - total }));
    expect(h).toMatchObject({ state: 6, after: 10, revision: 2, append: { expectedRevision: 1 } });
  });

  it('refuses a stale If-Match revision with 412 before deciding; the current one goes ahead', async () => {
    const bus = busWith([2, 4]);
    const decide = vi.spyOn(counter, 'decide');
    const stale = bus.handle('counter-1', counter, { type: 'Add', n: 1 }, { ifRevision: 1, staleMessage: 'Changed by someone else' });
    await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(stale).rejects.toMatchObject({ status: 412, code: 'precondition_failed', message: 'Changed by someone else' });
    expect(decide).not.toHaveBeenCalled();
    expect((await bus.handle('counter-1', counter, { type: 'Add', n: 1 }, { ifRevision: 2 })).after).toBe(7);
    // The decider's own refusals pass through.
    await expect(bus.handle('counter-1', counter, { type: 'Add', n: 5 })).rejects.toThrow('too much');
  });
});
