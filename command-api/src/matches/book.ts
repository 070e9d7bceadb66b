import {
  eventsOfChanges,
  foldSide,
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

/**
 * The side streams a matching decision has read, with their revisions (ADR 0021). A decision
 * reads the streams of the pair it decides on; the streams its changes touch besides those
 * (a rival suggestion's other side) are read before the append, for their revisions.
 */
export class LoadedBook implements MatchBook {
  private readonly sides = new Map<string, { state: SideState; expected: ExpectedRevision }>();

  constructor(private readonly events: EventStore) {}

  async load(receiptIds: Iterable<string>, transactionIds: Iterable<string>): Promise<this> {
    const streams = [...new Set([...[...receiptIds].map(receiptMatchesStream), ...[...transactionIds].map(transactionMatchesStream)])].filter((s) => !this.sides.has(s));
    for (let i = 0; i < streams.length; i += READ_CONCURRENCY) {
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
  async appends(companyId: string, by: string, changes: readonly MatchChange[]): Promise<Plan['appends']> {
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
