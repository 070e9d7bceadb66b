/**
 * The global position of a moment (an as-of read): the newest event decided at or before it, 0
 * when none. Found by real positions only: a position is read from only when an event holds it.
 *
 * - The embedded store numbers its events 1, 2, 3 ... with no gap, so any whole number up to the
 *   head is a position: a binary search, about log2(head) one-event reads.
 * - EventStoreDB's positions are byte offsets in its log, and a read from an offset between two
 *   events is refused (ADR 0016). The log is read backwards from the newest event, a page at a
 *   time, until an event decided at or before the moment. Each search leaves anchors (a position
 *   and its time, one per page) that later searches start from, so a moment searched near an
 *   earlier one reads a page or less, not the log since.
 *
 * Times are the events' `occurredAt`, which grows with the position up to the milliseconds
 * between deciding and appending.
 */
import type { EventStore, RecordedEvent } from '@paperlink/domain';

/** Events strictly before a position (undefined: the end of the log), newest first (EventStore.readAllBackwards). */
export type ReadBackwards = NonNullable<EventStore['readAllBackwards']>;

const timeOf = (e: RecordedEvent) => Date.parse(e.metadata.occurredAt);

/** Positions with their times, seen by earlier searches, kept in position order. */
export class TimeAnchors {
  private anchors: Array<{ position: number; time: number }> = [];

  constructor(private readonly max = 20_000) {}

  get size(): number {
    return this.anchors.length;
  }

  add(position: number, time: number): void {
    if (!Number.isFinite(time)) return;
    let lo = 0;
    let hi = this.anchors.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.anchors[mid]!.position < position) lo = mid + 1;
      else hi = mid;
    }
    if (this.anchors[lo]?.position === position) return;
    this.anchors.splice(lo, 0, { position, time });
    // Thinned evenly when full: every other anchor goes.
    if (this.anchors.length > this.max) this.anchors = this.anchors.filter((_, i) => i % 2 === 0);
  }

  /** The oldest anchor decided after `t`: every event from it on is later than `t`, so a search reads before it. */
  after(t: number): number | undefined {
    let lo = 0;
    let hi = this.anchors.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.anchors[mid]!.time <= t) lo = mid + 1;
      else hi = mid;
    }
    return this.anchors[lo]?.position;
  }
}

/**
 * The newest event at or before `t` (ms), reading backwards from the nearest later anchor in pages
 * that grow from 16 events to `pageSize` (the moment is most often near where the reading starts).
 */
export async function positionBackwards(read: ReadBackwards, t: number, anchors: TimeAnchors = new TimeAnchors(), pageSize = 500): Promise<number> {
  let before = anchors.after(t);
  for (let size = Math.min(16, pageSize); ; size = Math.min(pageSize, size * 4)) {
    const page = await read({ ...(before === undefined ? {} : { before }), maxCount: size });
    for (const e of page) {
      if (timeOf(e) <= t) {
        anchors.add(e.position, timeOf(e));
        return e.position;
      }
    }
    if (page.length === 0) return 0;
    const oldest = page[page.length - 1]!;
    anchors.add(oldest.position, timeOf(oldest));
    if (page.length < size) return 0;
    before = oldest.position;
  }
}

/** The same search over the embedded store's gapless positions: a binary search of one-event reads. */
export async function positionByNumber(events: Pick<EventStore, 'readAll' | 'headPosition'>, t: number): Promise<number> {
  let lo = 0;
  let hi = await events.headPosition();
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const [e] = await events.readAll({ after: mid - 1, maxCount: 1 });
    if (!e || e.position > hi) hi = mid - 1;
    else if (timeOf(e) <= t) lo = e.position;
    else hi = mid - 1;
  }
  return lo;
}

/** The global position of a moment, by the store's real positions (see above). */
export async function positionAt(events: EventStore, at: Date, anchors?: TimeAnchors): Promise<number> {
  if (events.readAllBackwards) return positionBackwards((options) => events.readAllBackwards!(options), at.getTime(), anchors);
  return positionByNumber(events, at.getTime());
}
