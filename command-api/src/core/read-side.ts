import { AppError } from '@paperlink/domain';
import type { CommandBus } from './bus';

/**
 * Decisions and read models that may lag (docs/decisions/0023-decisions-and-read-model-lag.md).
 * A command that decides on a read model first waits, for a bounded time, until the read models
 * include every event appended before it; if they do not by then, the command is refused with
 * 503 and a Retry-After header, never decided on what the read model happened to hold.
 */

/** What a client is told to wait before retrying (seconds). */
export const READ_SIDE_RETRY_AFTER_SECONDS = 2;

/** The read side did not catch up within the wait: 503 `read_side_behind`, with Retry-After. */
export class ReadSideBehindError extends AppError {
  constructor(readonly retryAfterSeconds = READ_SIDE_RETRY_AFTER_SECONDS) {
    super(503, 'read_side_behind', 'We are still catching up with the latest changes. Nothing was saved; try again in a few seconds.');
  }
}

/** For a plan about to decide on the read models: waits until they include `position`, or refuses (ReadSideBehindError). */
export async function requireCaughtUp(bus: CommandBus, position: number): Promise<void> {
  if (!(await bus.caughtUp(position))) throw new ReadSideBehindError();
}

/**
 * The position a company's decisions wait for: every event of that company appended so far
 * (infra's CompanyPositions), or, without one, the head of the log.
 */
export type DecisionPosition = (companyId: string) => Promise<number>;

/**
 * Waits until the read models hold every event appended so far (of `companyId`, when a
 * DecisionPosition is given; else the head of the log), or refuses (ReadSideBehindError).
 */
export async function readSideCurrent(bus: CommandBus, companyId?: string, position?: DecisionPosition): Promise<void> {
  await requireCaughtUp(bus, companyId !== undefined && position ? await position(companyId) : await bus.events.headPosition());
}

/** `read` (whose first argument is the company) after readSideCurrent: a read a decision rests on. */
export function freshRead<A extends [string, ...unknown[]], R>(bus: CommandBus, read: (...args: A) => Promise<R>, position?: DecisionPosition): (...args: A) => Promise<R> {
  return async (...args: A) => {
    await readSideCurrent(bus, args[0], position);
    return read(...args);
  };
}
