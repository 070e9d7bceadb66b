import { type Decider } from '../core/decider';
import { ConflictError } from '../core/errors';

/**
 * One stream per normalised email address: claiming it with expected revision 'no_stream'
 * makes the address unique on the write side, even under concurrent registrations.
 */
export type EmailEvent = { type: 'EmailClaimed'; data: { email: string; userId: string } };
export type EmailState = { status: 'free' } | { status: 'claimed'; userId: string };
export type EmailCommand = { type: 'ClaimEmail'; email: string; userId: string };

export const EMAIL_TAKEN_MESSAGE = 'An account with this email already exists';

export const emailDecider: Decider<EmailState, EmailCommand, EmailEvent> = {
  initialState: () => ({ status: 'free' }),
  evolve: (_state, event) => ({ status: 'claimed', userId: event.data.userId }),
  decide(command, state) {
    if (state.status === 'claimed') throw new ConflictError(EMAIL_TAKEN_MESSAGE, 'email_taken');
    return [{ type: 'EmailClaimed', data: { email: command.email, userId: command.userId } }];
  },
};
