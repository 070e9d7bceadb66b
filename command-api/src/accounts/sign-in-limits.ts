import { createHmac } from 'node:crypto';
import type { Response } from 'express';
import {
  LOGIN_FAILURE_WINDOW_MS,
  loginRetryAfterSeconds,
  MAX_LOGIN_FAILURES_PER_ACCOUNT,
  type CounterStore,
  type LimitHit,
  type LimitRule,
  type UserState,
} from '@paperlink/domain';

/**
 * The sign-in limits that are not the account's own (docs/decisions/0004-sign-in-throttling.md),
 * kept in the limit store that every process of the deployment shares: failures per address
 * across accounts, and failures at e-mails of no account. An account's own throttle is in its
 * event streams (ADR 0022), which every process reads already.
 */
export interface SignInLimits {
  store: CounterStore;
  /** Failed attempts one address group may make across accounts (LOGIN_MAX_FAILURES_PER_ADDRESS per LOGIN_ADDRESS_WINDOW_SECONDS). */
  perAddress: LimitRule;
}

/**
 * Failures kept per e-mail of no account and hour. Past MAX_LOGIN_FAILURES_PER_ACCOUNT the policy
 * stops every address that failed, so only new addresses add to it; past this many a new address
 * is answered as it would be (401) without being remembered.
 */
const UNKNOWN_EMAIL_FAILURES_KEPT = 10 * MAX_LOGIN_FAILURES_PER_ACCOUNT;

/** Keys of the limit store: HMAC tags under the server's secret, never an address or an e-mail, nor an unkeyed digest of one. */
export function limitKeys(secret: string): { address(group: string): string; unknownEmail(email: string): string } {
  const keyKey = createHmac('sha256', secret).update('paperlink limit keys').digest();
  const tag = (kind: string, value: string) => `${kind}:${createHmac('sha256', keyKey).update(`${kind}\0${value}`).digest('base64url').slice(0, 27)}`;
  return { address: (group) => tag('signin-address', group), unknownEmail: (email) => tag('signin-unknown-email', email) };
}

/**
 * Takes a slot of the address's failure budget for an attempt, or throws what `refused` makes of
 * the wait. The slot is given back when the response closes with anything but the failure
 * (`failed()` false then), so only failures count.
 */
export async function takeAddressSlot(limits: SignInLimits, key: string, res: Response, failed: () => boolean, refused: (seconds: number) => Error): Promise<void> {
  const slot = await limits.store.hit(key, limits.perAddress);
  if (!slot.allowed) throw refused(slot.retryAfterSeconds);
  res.once('close', () => {
    if (!failed()) slot.release().catch((error: unknown) => console.error('limits: giving back an address slot failed:', error));
  });
}

/** An e-mail of no account as the throttle sees an account: its failures of the hour, no address it signed in from. */
function phantomAccount(email: string, failures: LimitHit[]): UserState {
  return {
    status: 'registered',
    userId: '',
    email,
    firstName: '',
    lastName: '',
    passwordHash: '',
    recentFailures: failures.map((f) => (f.tag === undefined ? { at: new Date(f.at).toISOString() } : { at: new Date(f.at).toISOString(), source: f.tag })),
    knownSources: [],
  };
}

/**
 * A failed sign-in at an e-mail of no account, throttled as an account's would be, so that a 429
 * never tells that an account exists: 0 when it may be checked now (the failure is recorded), else
 * the seconds to wait (nothing recorded). The failure is recorded first and decided on the
 * failures recorded before it, so attempts in parallel, in any process, are decided one after
 * another, as an account's are by its stream's revision.
 */
export async function unknownAccountAttempt(store: CounterStore, key: string, email: string, source: string, now: Date): Promise<number> {
  const hit = await store.hit(key, { limit: UNKNOWN_EMAIL_FAILURES_KEPT, windowMs: LOGIN_FAILURE_WINDOW_MS }, { tag: source, now: now.getTime() });
  const wait = loginRetryAfterSeconds(phantomAccount(email, hit.earlier), now.toISOString(), source);
  if (wait > 0 && hit.allowed) await hit.release();
  return wait;
}
