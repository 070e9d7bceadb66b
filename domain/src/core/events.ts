/** The shapes every event shares, independent of any store. */

export interface EventMetadata {
  /** Company the event belongs to (absent for account-level events). */
  companyId?: string;
  /** The user on whose behalf the command ran (absent for system jobs). */
  userId?: string;
  /** X-Request-Id of the HTTP request, or the job id. */
  requestId?: string;
  /** Id of the conversation this belongs to (the first request's id). */
  correlationId?: string;
  /** Id of the message (request or event) that caused this one. */
  causationId?: string;
  /** ISO 8601 time when the command was decided. */
  occurredAt: string;
}

export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** An event ready to append: a unique id makes retries idempotent. */
export interface NewEvent<E extends DomainEvent = DomainEvent> {
  id: string;
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
}

/** An event as the store returns it. Positions and revisions are 0-based and dense per stream. */
export interface RecordedEvent<E extends DomainEvent = DomainEvent> {
  id: string;
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
  streamId: string;
  /** 0-based index of the event in its stream. */
  revision: number;
  /** Position in the global log; strictly increasing, starts at 1. */
  position: number;
}

/** `<category>-<id>`: category streams work in EventStoreDB ($ce-category). */
export function streamName(category: string, id: string): string {
  if (!/^[a-z][a-zA-Z0-9]*$/.test(category)) throw new Error(`bad stream category: ${category}`);
  return `${category}-${id}`;
}

export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash < 0 ? streamId : streamId.slice(0, dash);
}

/**
 * The type names of an event union, complete by construction: a name missing from `names`, or
 * one the union does not hold, fails to compile. Feature modules declare what they append with it.
 */
export function eventTypes<E extends DomainEvent>(names: Record<E['type'], true>): ReadonlyArray<E['type']> {
  return Object.keys(names) as Array<E['type']>;
}
