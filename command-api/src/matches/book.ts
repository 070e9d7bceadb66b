import {
  AppError,
  eventsOfChanges,
  foldSide,
  matchingCarriedStream,
  matchingStream,
  receiptMatchesStream,
  sidesOf,
  transactionMatchesStream,
  type EventStore,
  type ExpectedRevision,
  type MatchBook,
  type MatchChange,
  type SideEvent,
  type SideState,
} from '@paperlink/domain';
import type { Plan } from '../core/bus';

/** Side streams read at once (a full auto-match run reads thousands, a slice at a time). */
const READ_CONCURRENCY = 64;
/** How long a decision waits for its company's old matches to be carried before answering 503. */
const CARRY_WAIT_MS = 20_000;

/** Companies known to have no old `matching-<company>` stream left to carry, per event store (in this process). */
const carried = new WeakMap<EventStore, Set<string>>();

/**
 * Waits until the company's matches are in their side streams: a data folder written before side
 * streams has them in `matching-<company>` until the start-up carry (infra, ADR 0021) marks the company
 * done. Read once per company and process: the old stream's first event (none for a company that
 * never had one) and the mark.
 */
async function sidesReady(events: EventStore, companyId: string): Promise<void> {
  let known = carried.get(events);
  if (!known) carried.set(events, (known = new Set()));
  if (known.has(companyId)) return;
  const [old] = await events.readStream(matchingStream(companyId), { maxCount: 1 });
  for (const start = Date.now(); old; ) {
    const [mark] = await events.readStream(matchingCarriedStream(companyId), { maxCount: 1 });
    if (mark) break;
    if (Date.now() - start > CARRY_WAIT_MS) throw new AppError(503, 'matching_upgrading', 'The matches of this company are being moved to a new format; try again in a moment');
    await new Promise((r) => setTimeout(r, 100));
  }
  known.add(companyId);
}

/**
 * The side streams a matching decision has read, with their revisions (ADR 0021). A decision
 * reads the streams of the pair it decides on; the streams its changes touch besides those
 * (a rival suggestion's other side) are read before the append, for their revisions.
 */
export class LoadedBook implements MatchBook {
  private readonly sides = new Map<string, { state: SideState; expected: ExpectedRevision }>();

  constructor(private readonly events: EventStore, private readonly companyId: string) {}

  async load(receiptIds: Iterable<string>, transactionIds: Iterable<string>): Promise<this> {
    await sidesReady(this.events, this.companyId);
    const streams = [...new Set([...[...receiptIds].map(receiptMatchesStream), ...[...transactionIds].map(transactionMatchesStream)])].filter((s) => !this.sides.has(s));
    for (let i = 0; i < streams.length; i += READ_CONCURRENCY) {
      // A turn of the event loop between slices: a block of thousands of sides must not hold the request thread.
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      await Promise.all(streams.slice(i, i + READ_CONCURRENCY).map(async (stream) => {
        const recorded = await this.events.readStream(stream);
        this.sides.set(stream, {
          state: foldSide(recorded as unknown as SideEvent[]),
          expected: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision,
        });
      }));
    }
    return this;
  }

  private side(stream: string): { state: SideState; expected: ExpectedRevision } {
    const s = this.sides.get(stream);
    if (!s) throw new Error(`matching decided on a stream it did not read: ${stream}`);
    return s;
  }

  receipt(receiptId: string): SideState {
    return this.side(receiptMatchesStream(receiptId)).state;
  }

  transaction(transactionId: string): SideState {
    return this.side(transactionMatchesStream(transactionId)).state;
  }

  /** The appends of a decision's changes, every stream with the revision read: transactions' notes first (ADR 0016). */
  async appends(by: string, changes: readonly MatchChange[]): Promise<Plan['appends']> {
    const { companyId } = this;
    if (changes.length === 0) return [];
    const touched = sidesOf(changes);
    await this.load(touched.receiptIds, touched.transactionIds);
    const { transactions, receipts } = eventsOfChanges(companyId, by, changes);
    return [
      ...[...transactions].map(([id, events]) => ({ streamId: transactionMatchesStream(id), expectedRevision: this.side(transactionMatchesStream(id)).expected, events })),
      ...[...receipts].map(([id, events]) => ({ streamId: receiptMatchesStream(id), expectedRevision: this.side(receiptMatchesStream(id)).expected, events })),
    ];
  }
}
