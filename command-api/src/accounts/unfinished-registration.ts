/**
 * A registration that stopped after the user's stream (ADR 0016). On EventStoreDB appendMany is
 * not atomic: the email claim and the user may be written, the company and the session not. The
 * account then signs in but belongs to no company, and registering again was refused as
 * `email_taken`. A registration of the same address with the account's password resumes it: only
 * the company and a session are appended.
 */
import { createHash } from 'node:crypto';
import type { UserState } from '@paperlink/domain';
import type { CommandBus } from '../core/bus';
import type { PasswordHasher } from '../core/ports';
import { readSideCurrent } from '../core/read-side';
import type { AccountViews } from '../core/views';
import { loadUser } from './user-streams';

/**
 * The company of a resumed registration: one id per user (a UUID of version 8 from a hash of
 * the user's id), so two resumptions at once race for one stream (`no_stream`) and one wins;
 * the other is planned again and finds the company.
 */
export function resumedCompanyId(userId: string): string {
  const b = createHash('sha256').update(`paperlink resumed registration\0${userId}`).digest().subarray(0, 16);
  b[6] = 0x80 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The claim's user when theirs is a registration to resume with this password: registered,
 * a member of no company (read once the read models hold every event so far, ADR 0023), and the
 * password is theirs. Otherwise null (the address is taken, as ever).
 */
export async function unfinishedRegistration(
  deps: { bus: CommandBus; hasher: PasswordHasher; views: AccountViews },
  userId: string,
  password: string,
): Promise<Extract<UserState, { status: 'registered' }> | null> {
  const user = (await loadUser(deps.bus.events, userId)).state;
  if (user.status !== 'registered') return null;
  await readSideCurrent(deps.bus);
  if ((await deps.views.companies(userId)).length > 0) return null;
  return (await deps.hasher.verify(user.passwordHash, password)) ? user : null;
}
