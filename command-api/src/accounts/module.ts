import { created, ok, type CommandModule } from '../core/module';
import { eventTypes, type EmailEvent, type SessionEvent, type UserEvent } from '@paperlink/domain';
import { accountRouter, publicAccountRouter, LoginBody, LogoutBody, PasswordBody, ProfileBody, RefreshBody, RegisterBody, type AccountDeps } from './routes';

/** Sign-up, sign-in, sessions and the caller's own account. */
export const accountCommands: CommandModule<AccountDeps> = {
  feature: 'accounts',
  events: [...eventTypes<UserEvent>({ UserRegistered: true, UserProfileUpdated: true, UserPasswordChanged: true, UserLoggedIn: true, UserLoginFailed: true, UserPasswordChangeFailed: true, UserSessionsRevoked: true, UserLoginFailuresCleared: true, UserSignInSourceRecorded: true }), 'UserSnapshotTaken', ...eventTypes<SessionEvent>({ SessionStarted: true, SessionRefreshed: true, SessionRevoked: true }), ...eventTypes<EmailEvent>({ EmailClaimed: true })],
  operations: [
    // accounts (public)
    { method: 'post', path: '/auth/register', summary: 'Create an account and its company; signs in', tags: ['auth'], auth: 'none', body: { json: RegisterBody }, success: created('The user, the company and tokens'), errors: { 409: 'The email address is taken' } },
    { method: 'post', path: '/auth/login', summary: 'Sign in', tags: ['auth'], auth: 'none', body: { json: LoginBody }, success: ok('The user and tokens'), errors: { 401: 'Wrong email or password', 429: 'Too many failed attempts' } },
    { method: 'post', path: '/auth/refresh', summary: 'New tokens for a refresh token (rotated; a reused one ends the session)', tags: ['auth'], auth: 'none', body: { json: RefreshBody }, success: ok('New tokens'), errors: { 401: 'The refresh token is not valid, expired or reused' } },
    { method: 'post', path: '/auth/logout', summary: 'Sign out the session of a refresh or access token', tags: ['auth'], auth: 'none', body: { json: LogoutBody }, success: ok('Signed out'), errors: { 401: 'The token is not valid' } },
    // accounts (signed in)
    { method: 'post', path: '/auth/logout-all', summary: 'Sign out every session of the caller', tags: ['auth'], auth: 'user', success: ok('Signed out everywhere') },
    { method: 'put', path: '/auth/profile', summary: "Change the caller's name", tags: ['auth'], auth: 'user', body: { json: ProfileBody }, success: ok('The user after the change') },
    { method: 'put', path: '/auth/password', summary: "Change the caller's password (ends their other sessions)", tags: ['auth'], auth: 'user', body: { json: PasswordBody }, success: ok('Changed'), errors: { 400: 'The current password is wrong (a failed attempt of the account, as a failed sign-in)', 429: 'Too many wrong current passwords (Retry-After)', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  ],
  publicRouters: (deps) => [publicAccountRouter(deps)],
  routers: (deps) => [accountRouter(deps)],
};
