import { emailDecider, fold, type EventStore, type EmailEvent } from '@paperlink/domain';

import { companyStream, emailStream, sessionStream, userStream } from '@paperlink/domain';
export { companyStream, emailStream, sessionStream, userStream };

/** The user id that owns an email address, from the write side's uniqueness stream. */
export async function userIdByEmail(events: EventStore, email: string): Promise<string | undefined> {
  const recorded = await events.readStream(emailStream(email));
  const state = fold(emailDecider, recorded as unknown as EmailEvent[]);
  return state.status === 'claimed' ? state.userId : undefined;
}
