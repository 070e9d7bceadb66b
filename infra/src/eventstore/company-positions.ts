import type { AppendResult, EventStore, StreamAppend } from '@paperlink/domain';

/**
 * The position a company's decisions must see projected before they read its read models
 * (ADR 0023): the newest event of that company, so that a large import of one company (seconds
 * of projection work) does not hold the decisions of the others. Known only where this process
 * is the only writer (the embedded store, whose data folder is locked by one server): every
 * append goes through `wrap`, and events from before the start are covered by the head at start.
 * With a shared store (EventStoreDB: other processes append too) it is the head of the log.
 * Events of no company (a user's own profile) are not waited for: a name changed a moment ago
 * may not yet be seen by an import's assignment of rows by name.
 */
export class CompanyPositions {
  private readonly last = new Map<string, number>();
  private constructor(
    private readonly events: EventStore,
    private readonly startHead: number,
    private readonly onlyWriter: boolean,
  ) {}

  static async open(events: EventStore, onlyWriter: boolean): Promise<CompanyPositions> {
    return new CompanyPositions(events, await events.headPosition(), onlyWriter);
  }

  /** The position to wait for before deciding on `companyId`'s read models. */
  async of(companyId: string): Promise<number> {
    if (!this.onlyWriter) return this.events.headPosition();
    return Math.max(this.startHead, this.last.get(companyId) ?? 0);
  }

  /** The event store, recording the position of each company's appended events. */
  wrap(events: EventStore): EventStore {
    const record = (appends: StreamAppend[], results: AppendResult[]) => {
      appends.forEach((a, i) => {
        const result = results[i];
        if (!result || a.events.length === 0) return;
        for (const e of a.events) {
          // The request's company, or the company the event is about (a registration's new company).
          const about = (e.data as { companyId?: unknown } | null)?.companyId;
          const companyId = e.metadata.companyId ?? (typeof about === 'string' ? about : undefined);
          if (companyId && (this.last.get(companyId) ?? 0) < result.position) this.last.set(companyId, result.position);
        }
      });
    };
    return new Proxy(events, {
      get(target, prop, receiver) {
        if (prop === 'appendMany') {
          const appendMany: EventStore['appendMany'] = async (appends) => {
            const results = await target.appendMany(appends);
            record(appends, results);
            return results;
          };
          return appendMany;
        }
        if (prop === 'appendToStream') {
          const appendToStream: EventStore['appendToStream'] = async (streamId, newEvents, expectedRevision) => {
            const result = await target.appendToStream(streamId, newEvents, expectedRevision);
            record([{ streamId, events: newEvents, expectedRevision: expectedRevision ?? 'any' }], [result]);
            return result;
          };
          return appendToStream;
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
