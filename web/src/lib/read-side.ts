import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

/**
 * Read-your-writes for this tab (ADR 0025, 0030): the server answers a write with its log position
 * (`X-Position`) and says whether its lists already hold it (`X-Read-Side: current | behind`; a
 * very large import is answered before all of its rows are listed). The API client keeps the
 * newest position it was given and sends it with every read (`X-Min-Position`, with `Prefer:
 * wait=1`), so a list never shows less than this tab has written; while the server says
 * `behind`, the shell says so (ReadSideNotice) and asks again until it is current. The position
 * is kept in the tab's sessionStorage, so a reload still reads this tab's writes.
 */
interface ReadSideState {
  /** The newest log position this tab wrote (0: none yet). */
  position: number;
  /** Whether the last answer about `position` said the lists do not hold it yet. */
  behind: boolean;
  /** What one answer said: its headers' position (a write) and read side. */
  noteAnswer(position: number | null, readSide: string | null, askedFor: number | null): void;
  reset(): void;
}

export const useReadSide = create<ReadSideState>()(persist((set, get) => ({
  position: 0,
  behind: false,
  noteAnswer: (position, readSide, askedFor) => {
    const state = get();
    if (position !== null && position > state.position) {
      // A write: its own answer says whether it is listed (absent: it did not wait, as a refresh).
      set({ position, behind: readSide === 'behind' });
      return;
    }
    // A read that asked for this tab's newest position says whether the lists hold it.
    if ((readSide === 'current' || readSide === 'behind') && askedFor !== null && askedFor >= state.position) set({ behind: readSide === 'behind' });
  },
  reset: () => set({ position: 0, behind: false }),
}), {
  name: 'paperlink-read-position',
  storage: createJSONStorage(() => sessionStorage),
  partialize: (s) => ({ position: s.position }),
}));

/** How long a read may be held for this tab's own writes, seconds (RFC 7240 `Prefer: wait`). */
export const READ_WAIT_S = 1;

/** The headers a read carries for this tab's writes (none before its first write). */
export function readSideHeaders(method: string | undefined): Record<string, string> {
  const { position } = useReadSide.getState();
  if (position <= 0 || (method ?? 'get').toLowerCase() !== 'get') return {};
  return { 'X-Min-Position': String(position), Prefer: `wait=${READ_WAIT_S}` };
}

/** A header's whole positive number, or null. */
export function positionHeader(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}
