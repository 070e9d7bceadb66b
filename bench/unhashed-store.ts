import { SqliteEventStore } from '../infra/src/eventstore/sqlite';

/**
 * The embedded event store without its hash chain: appends store no hash and serialise with
 * JSON.stringify instead of canonical JSON. bench/audit.ts's baseline for the cost of hashing,
 * measured against the same store with it; `make verify` reports its rows as missing_hash.
 */
export class UnhashedSqliteEventStore extends SqliteEventStore {
  protected override toJson(value: unknown): string {
    return JSON.stringify(value);
  }

  protected override chainLink(): string | null {
    return null;
  }
}
