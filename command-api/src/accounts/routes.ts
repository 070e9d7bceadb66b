import { createHmac, randomUUID } from 'node:crypto';
import { newId } from '../core/ids';
import { Router } from 'express';
import { z } from 'zod';
import {
  companyDecider,
  emailDecider,
  emailProblems,
  loginRetryAfterSeconds,
  normaliseEmail,
  passwordChangeRateLimited,
  passwordChangeRetryAfterSeconds,
  passwordProblems,
  refreshIssuedAt,
  refreshOutcome,
  requireName,
  sessionDecider,
  throwIfProblems,
  TooManyRequestsError,
  UnauthorizedError,
  userDecider,
  ValidationError,
  type EventStore,
  type RequestContext,
  type Role,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import type { PasswordHasher } from '../core/ports';
import type { SessionGrant, TokenService } from '../core/tokens';
import type { AccountViews } from '../core/views';
import { ctxOf } from '../http/context';
import { addressGroup } from '../http/rate-limit';
import { companyStream, emailStream, sessionStream, userIdByEmail, userStream } from './lookup';
import { loadSignIn, loadUser, userAppends } from './user-streams';
import { readSideCurrent } from '../core/read-side';
import { endIfPasswordChanged, endSessionsStartedBefore } from './session-ends';
import { loadSessionForRefresh } from './session-streams';
import { limitKeys, takeAddressSlot, unknownAccountAttempt, type SignInLimits } from './sign-in-limits';

export interface AccountDeps {
  bus: CommandBus;
  events: EventStore;
  tokens: TokenService;
  hasher: PasswordHasher;
  views: AccountViews;
  /** Failures per address and at e-mails of no account, in the store every process shares. */
  limits: SignInLimits;
  /** Server secret keying the address tags stored with sign-ins (never a plain address in an event) and the limit store's keys. */
  loginAddressKey: string;
}

const str = z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string({ error: 'Must be text' }).max(1000, 'Too long'));
export const RegisterBody = z.object({ firstName: str, lastName: str, email: str, password: str, companyName: str });
export const LoginBody = z.object({ email: str, password: str });
export const ProfileBody = z.object({ firstName: str, lastName: str });
export const PasswordBody = z.object({ currentPassword: str, newPassword: str });
/** A missing or unreadable token is a 401 (the token service says which). */
export const RefreshBody = z.object({ refreshToken: z.string().max(4096).nullish() });
/** Signs out the session of the refresh token, or else of the bearer token. */
export const LogoutBody = z.object({ refreshToken: z.string().max(4096).nullish() });

/** The keyed tag of an address group stored with sign-ins and password changes (never the address itself). */
function addressTagger(secret: string): (address: string) => string {
  const tagKey = createHmac('sha256', secret).update('paperlink sign-in address tags').digest();
  return (address) => createHmac('sha256', tagKey).update(address).digest('base64url').slice(0, 22);
}

/** Public account routes: register, login, refresh, logout. */
export function publicAccountRouter(deps: AccountDeps): Router {
  const { bus, events, tokens, hasher, views } = deps;
  /**
   * The account's view for a grant. A registered user the read model does not hold yet (it is
   * rebuilding, e.g. the first start after an upgrade) is waited for, then 503 read_side_behind:
   * never a 401 that tells the owner the password was wrong or ends a live session.
   */
  const userView = async (userId: string, companyId?: string) => {
    const view = await views.user(userId, companyId);
    if (view) return view;
    await readSideCurrent(bus);
    return views.user(userId, companyId);
  };
  const router = Router();
  /** A hash of a random string: verifying against it costs what a real check costs. */
  let dummy: Promise<string> | undefined;
  const dummyHash = () => (dummy ??= hasher.hash(randomUUID()));
  const addressTag = addressTagger(deps.loginAddressKey);
  const keys = limitKeys(deps.loginAddressKey);
  const expiresAt = (ctx: RequestContext) => new Date(ctx.now.getTime() + tokens.refreshTtlSeconds * 1000).toISOString();

  router.post('/auth/register', async (req, res) => {
    const body = RegisterBody.parse(req.body ?? {});
    const firstName = body.firstName.trim();
    const lastName = body.lastName.trim();
    const companyName = body.companyName.trim();
    const email = normaliseEmail(body.email);
    throwIfProblems([
      ...requireName(firstName, 'firstName', 'First name is required'),
      ...requireName(lastName, 'lastName', 'Last name is required'),
      ...emailProblems(email),
      ...requireName(companyName, 'companyName', 'Company name is required', 120),
      ...passwordProblems(body.password),
    ]);
    // A taken address is a failure of the address (409), counted with its failed sign-ins: looking
    // e-mails up through registration spends the same budget as guessing through sign-in.
    const address = addressGroup(ctxOf(res).ip ?? 'unknown');
    await takeAddressSlot(deps.limits, keys.address(address), res, () => res.statusCode === 409, (wait) => new TooManyRequestsError('Too many failed attempts from this address. Try again later.', wait, 'register_rate_limited'));
    // Hashed before anything is looked up: a taken address answers after the same work as a free one.
    const passwordHash = await hasher.hash(body.password);
    const companyId = newId();
    const sessionId = newId();
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const now = ctx.now.toISOString();
      const emailS = await bus.load(emailStream(email), emailDecider);
      // A claim whose user was never written is a registration that stopped after its first
      // stream (appendMany is not atomic on EventStoreDB, ADR 0016): this one takes it over. A
      // claim with a user is an account, whatever its password or companies: registering never
      // signs in to it (a password checked here was a guess outside the sign-in throttle).
      const orphan = emailS.state.status === 'claimed' && (await bus.events.readStream(userStream(emailS.state.userId), { maxCount: 1 })).length === 0;
      const userId = orphan && emailS.state.status === 'claimed' ? emailS.state.userId : newId();
      const grant: SessionGrant = { userId, email, firstName, lastName, role: 'admin', companyId, sessionId, generation: 0, issuedAt: Math.floor(ctx.now.getTime() / 1000) };
      const company = { id: companyId, name: companyName, role: 'admin' as Role };
      return {
        status: 201,
        appends: [
          ...(orphan ? [] : [{ streamId: emailStream(email), expectedRevision: emailS.expected, events: emailDecider.decide({ type: 'ClaimEmail', email, userId }, emailS.state) }]),
          { streamId: userStream(userId), expectedRevision: 'no_stream' as const, events: userDecider.decide({ type: 'RegisterUser', userId, email, firstName, lastName, passwordHash, now }, userDecider.initialState()) },
          { streamId: companyStream(companyId), expectedRevision: 'no_stream', events: companyDecider.decide({ type: 'RegisterCompany', companyId, name: companyName, adminUserId: userId, now, adminName: `${firstName} ${lastName}` }, companyDecider.initialState()) },
          { streamId: sessionStream(sessionId), expectedRevision: 'no_stream', events: sessionDecider.decide({ type: 'StartSession', sessionId, userId, now, expiresAt: expiresAt(ctx) }, sessionDecider.initialState()) },
        ],
        body: {
          user: { id: userId, email, firstName, lastName, emailVerified: false, lastLogin: now, memberSince: now, currentRole: 'admin', currentCompany: company, companies: [company] },
          company: { ...company, domain: null, planType: 'BASIC', userCount: 1, transactionCount: 0, receiptCount: 0, matchRate: 0, createdAt: now, updatedAt: now },
          companies: [company],
        },
        grant,
      };
    }, tokens, {
      // The password is left out of the fingerprint: a retry gets the account's tokens only with the account's password.
      mayReplayGrant: async (previous) => {
        const registered = previous.grant ? (await loadUser(events, previous.grant.userId)).state : undefined;
        return registered?.status === 'registered' && (await hasher.verify(registered.passwordHash, body.password));
      },
    });
  });

  router.post('/auth/login', async (req, res) => {
    const body = LoginBody.parse(req.body ?? {});
    const email = normaliseEmail(body.email);
    throwIfProblems([...emailProblems(email), ...(body.password ? [] : [{ field: 'password', message: 'Password is required' }])]);
    const ctx = ctxOf(res);
    const address = addressGroup(ctx.ip ?? 'unknown');
    // The address's slot is taken first, atomically in the shared store, so that parallel attempts
    // (in any process) cannot all pass the check; it is given back when the answer is anything but a failure.
    await takeAddressSlot(deps.limits, keys.address(address), res, () => res.statusCode === 401, (wait) => new TooManyRequestsError('Too many failed sign-in attempts from this address. Try again later.', wait, 'login_rate_limited'));
    const invalid = { error: 'Invalid email or password', code: 'invalid_credentials' };
    // Per account and address (docs/decisions/0004): checked before the password, and again in the plan.
    const source = addressTag(address);
    const userId = await userIdByEmail(events, email);
    if (!userId) {
      // An email of no account is throttled as an account would be, or a 429 would tell which exist.
      const wait = await unknownAccountAttempt(deps.limits.store, keys.unknownEmail(email), email, source, ctx.now);
      if (wait > 0) throw new TooManyRequestsError('Too many failed sign-in attempts. Try again later.', wait, 'login_rate_limited');
      await hasher.verify(await dummyHash(), body.password); // same time as a real check
      throw new UnauthorizedError(invalid.error, invalid.code);
    }
    const sessionId = newId();
    // Reads `user-<id>` from its checkpoint, this hour's and the last hour's attempts, and the
    // address's mark: never the sign-in history (ADR 0022).
    const first = await loadSignIn(events, userId, ctx.now.toISOString(), source);
    if (first.state.status !== 'registered') throw new UnauthorizedError(invalid.error, invalid.code);
    const accountWait = loginRetryAfterSeconds(first.state, ctx.now.toISOString(), source);
    if (accountWait > 0) throw new TooManyRequestsError('Too many failed sign-in attempts. Try again later.', accountWait, 'login_rate_limited');
    /** The hash the password was checked against. */
    let checked = first.state.passwordHash;
    let passwordValid = await hasher.verify(checked, body.password);
    const { status } = await send(req, res, bus, async (c): Promise<Plan> => {
      const now = c.now.toISOString();
      const signIn = await loadSignIn(events, userId, now, source);
      // The password changed since it was checked: check it against the new one.
      if (signIn.state.status === 'registered' && signIn.state.passwordHash !== checked) {
        checked = signIn.state.passwordHash;
        passwordValid = await hasher.verify(checked, body.password);
      }
      const decided = userDecider.decide({ type: 'RecordLogin', passwordValid, sessionId, now, source }, signIn.state);
      if (!passwordValid || signIn.state.status !== 'registered') return { status: 401, appends: userAppends(signIn, decided), body: invalid };
      const view = await userView(userId, req.header('x-company-id') ?? undefined);
      if (!view) throw new UnauthorizedError(invalid.error, invalid.code);
      const grant: SessionGrant = {
        userId, email: view.email, firstName: view.firstName, lastName: view.lastName,
        role: view.currentRole, companyId: view.currentCompany?.id ?? null, sessionId, generation: 0, issuedAt: Math.floor(c.now.getTime() / 1000),
      };
      const started = sessionDecider.decide({ type: 'StartSession', sessionId, userId, now, expiresAt: expiresAt(c) }, sessionDecider.initialState());
      return {
        appends: userAppends(signIn, decided, { streamId: sessionStream(sessionId), expectedRevision: 'no_stream', events: started }),
        body: { user: { ...view, lastLogin: now }, companies: view.companies },
        grant,
      };
    }, tokens);
    // A sign-in no longer appends to `user-<id>`, so a password change appended while this one
    // ran does not conflict with it. The change ends the sessions it can see once appended; this
    // session, appended after it, ends itself here when the password it checked is no longer the
    // account's (ADR 0022: each side writes, then reads what the other wrote).
    if (status === 200) await endIfPasswordChanged(bus, ctx, userId, sessionId, checked);
  });

  router.post('/auth/refresh', async (req, res) => {
    const { sessionId, generation } = await tokens.parseRefreshToken(RefreshBody.parse(req.body ?? {}).refreshToken);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      // The session's start and its rotations from the presented generation on, not all of them.
      const session = await loadSessionForRefresh(events, sessionId, generation);
      if (session.state.status === 'none') throw new UnauthorizedError('Invalid refresh token', 'invalid_refresh_token');
      const userId = session.state.userId;
      // `user-<id>` holds the account's decisions only (password, "signed out everywhere"),
      // read from its latest checkpoint: its size does not follow the sign-ins (ADR 0022).
      const user = await loadUser(events, userId);
      const userState = user.state.status === 'registered' ? user.state : undefined;
      const sessionEvents = sessionDecider.decide(
        { type: 'RefreshSession', generation, now: ctx.now.toISOString(), expiresAt: expiresAt(ctx), ...(userState?.sessionsRevokedAt ? { userSessionsRevokedAt: userState.sessionsRevokedAt } : {}) },
        session.state,
      );
      const appends = [{ streamId: sessionStream(sessionId), expectedRevision: session.expected, events: sessionEvents }, ...(user.checkpoint ? [user.checkpoint] : [])];
      const next = refreshOutcome(session.state, sessionEvents);
      const view = userState ? await userView(userId, req.header('x-company-id') ?? undefined) : null;
      if (next === undefined || !view) {
        return { status: 401, appends, body: { error: 'Your session has expired. Please sign in again.', code: 'session_revoked' } };
      }
      const grant: SessionGrant = {
        userId, email: view.email, firstName: view.firstName, lastName: view.lastName,
        role: view.currentRole, companyId: view.currentCompany?.id ?? null, sessionId, generation: next,
        // The winner's issue time for a parallel refresh: the same tokens, not ones a second later.
        issuedAt: Math.floor(Date.parse(refreshIssuedAt(session.state, sessionEvents) ?? ctx.now.toISOString()) / 1000),
      };
      // A rotation changes only the session's expiry in the read models, which no answer shows and
      // the session guard does not read (it reads revoked, owner, start): answered once appended,
      // without the wait for the projections (ADR 0029). A refusal above (reuse: the family
      // revoked) still waits, so the revoked session is refused from its answer on.
      return { appends, body: {}, grant, waitForReadModels: false };
    }, tokens, { bind: [sessionId, generation] }); // the token itself is a secret: its session and generation bind a retry
  });

  router.post('/auth/logout', async (req, res) => {
    let sessionId: string | undefined;
    const refresh = LogoutBody.parse(req.body ?? {}).refreshToken;
    if (refresh) sessionId = (await tokens.parseRefreshToken(refresh)).sessionId;
    else {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '')?.[1];
      if (bearer) sessionId = (await tokens.verifyAccess(bearer).catch(() => undefined))?.sid;
    }
    if (!sessionId) throw new ValidationError('A refresh token or access token is required to sign out', undefined, 'token_required');
    const sid = sessionId;
    await send(req, res, bus, async (c): Promise<Plan> => {
      const session = await bus.load(sessionStream(sid), sessionDecider);
      if (session.state.status !== 'none') c.userId = session.state.userId;
      return {
        appends: [{ streamId: sessionStream(sid), expectedRevision: session.expected, events: sessionDecider.decide({ type: 'RevokeSession', reason: 'logout', now: c.now.toISOString() }, session.state) }],
        body: { success: true, message: 'Logged out successfully' },
      };
    });
  });

  return router;
}

/** Account routes for a signed-in user. */
export function accountRouter(deps: AccountDeps): Router {
  const { bus, events, hasher, views } = deps;
  const router = Router();
  const addressTag = addressTagger(deps.loginAddressKey);
  const keys = limitKeys(deps.loginAddressKey);

  router.post('/auth/logout-all', async (req, res) => {
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const user = await loadUser(events, ctx.userId!);
      return {
        appends: userAppends(user, userDecider.decide({ type: 'RevokeAllSessions', now: ctx.now.toISOString() }, user.state)),
        body: { success: true, message: 'Signed out of all devices' },
      };
    });
  });

  router.put('/auth/profile', async (req, res) => {
    const body = ProfileBody.parse(req.body ?? {});
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const user = await loadUser(events, ctx.userId!);
      const evts = userDecider.decide({ type: 'UpdateProfile', firstName: body.firstName, lastName: body.lastName }, user.state);
      const view = await views.user(ctx.userId!, ctx.companyId);
      return {
        appends: userAppends(user, evts),
        body: { user: view && { ...view, firstName: body.firstName.trim(), lastName: body.lastName.trim() }, message: 'Profile updated successfully' },
      };
    });
  });

  router.put('/auth/password', async (req, res) => {
    const body = PasswordBody.parse(req.body ?? {});
    if (!body.currentPassword || !body.newPassword) throw new ValidationError('All password fields are required');
    if (body.newPassword.length < 8) throw new ValidationError('New password must be at least 8 characters long', [{ field: 'newPassword', message: 'New password must be at least 8 characters long' }]);
    throwIfProblems(passwordProblems(body.newPassword, 'newPassword', 'New password'));
    const ctx = ctxOf(res);
    // A wrong current password is a failed attempt of the account under the sign-in policy
    // (docs/decisions/0004): the address's slot is taken first (the budget sign-ins spend too) and
    // given back unless the answer is that failure; the account (per address and per session) is
    // checked before the password, and again in the plan.
    const address = addressGroup(ctx.ip ?? 'unknown');
    let failed = false;
    await takeAddressSlot(deps.limits, keys.address(address), res, () => failed && res.statusCode === 400, (wait) => new TooManyRequestsError('Too many failed attempts from this address. Try again later.', wait, 'password_change_rate_limited'));
    const source = addressTag(address);
    const sessionId = ctx.sessionId!;
    const current = await loadSignIn(events, ctx.userId!, ctx.now.toISOString(), source);
    const wait = passwordChangeRetryAfterSeconds(current.state, ctx.now.toISOString(), source, sessionId);
    if (wait > 0) throw passwordChangeRateLimited(wait);
    const currentPasswordValid = current.state.status === 'registered' && (await hasher.verify(current.state.passwordHash, body.currentPassword));
    const newPasswordHash = currentPasswordValid ? await hasher.hash(body.newPassword) : '';
    const userId = ctx.userId!;
    const { status, position } = await send(req, res, bus, async (c): Promise<Plan> => {
      failed = false;
      const now = c.now.toISOString();
      const user = await loadSignIn(events, userId, now, source);
      // The password changed since the current one was checked: this change is refused as a wrong one would be.
      const stillValid = currentPasswordValid && user.state.status === 'registered' && current.state.status === 'registered' && user.state.passwordHash === current.state.passwordHash;
      const changed = userDecider.decide({ type: 'ChangePassword', currentPasswordValid: stillValid, newPasswordHash, now, source, sessionId }, user.state);
      if (!stillValid) {
        failed = true;
        const wrong = 'Current password is incorrect';
        return {
          status: 400,
          appends: userAppends(user, changed),
          body: { error: wrong, code: 'wrong_password', details: [{ field: 'currentPassword', message: wrong }] },
        };
      }
      // Every other session of the user ends (ASVS 3.3.3); the caller's own goes on. Those the
      // read models show, caught up to the log as it is now, end in this append; a sign-in that
      // checked the old password and is appended after this read ends after this append (below,
      // or by its own check, see the login route and ADR 0022). A read side that does not catch
      // up in time refuses the change (503, nothing saved; ADR 0023).
      await readSideCurrent(bus);
      const others = (await views.activeSessions(c.userId!, now)).filter((id) => id !== c.sessionId);
      const revocations = await Promise.all(others.map(async (id) => {
        const session = await bus.load(sessionStream(id), sessionDecider);
        return { streamId: sessionStream(id), expectedRevision: session.expected, events: sessionDecider.decide({ type: 'RevokeSession', reason: 'password_changed', now }, session.state) };
      }));
      // Revocations first: where appendMany is not atomic (EventStoreDB), a failure after them leaves
      // the old password with the other sessions ended (the retry changes it), never a changed
      // password with the other sessions still open (ADR 0016).
      return {
        appends: [...revocations, ...userAppends(user, changed)],
        body: { success: true, message: 'Password changed successfully', otherSessionsEnded: revocations.filter((r) => r.events.length > 0).length },
      };
    });
    // Sessions started before the change was appended that its plan could not yet see.
    if (status === 200) await endSessionsStartedBefore(bus, views, ctx, userId, sessionId, position);
  });

  return router;
}

