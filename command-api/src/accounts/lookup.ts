import { createHash } from 'node:crypto';
import { emailDecider, fold, type EventStore, type EmailEvent } from '@paperlink/domain';

export const emailStream = (email: string) => `email-${createHash('sha256').update(email).digest('hex').slice(0, 40)}`;
export const userStream = (userId: string) => `user-${userId}`;
export const sessionStream = (sessionId: string) => `session-${sessionId}`;
export const companyStream = (companyId: string) => `company-${companyId}`;

/** The user id that owns an email address, from the write side's uniqueness stream. */
export async function userIdByEmail(events: EventStore, email: string): Promise<string | undefined> {
  const recorded = await events.readStream(emailStream(email));
  const state = fold(emailDecider, recorded as unknown as EmailEvent[]);
  return state.status === 'claimed' ? state.userId : undefined;
}
