import { sessionDecider, sessionStream, type RequestContext } from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import type { AccountViews } from '../core/views';
import { loadUser } from './user-streams';

/**
 * A password change and a sign-in that checked the old password, appended in either order
 * (docs/decisions/0022-session-streams.md): a sign-in no longer appends to `user-<id>`, so the
 * two no longer conflict. Each side writes, then reads what the other wrote, and ends the
 * sign-in's session if it was started with the old password.
 */

/** Ends sessions, in a command of their own (after the request's). */
export async function endSessions(bus: CommandBus, ctx: RequestContext, sessionIds: string[]): Promise<void> {
  await bus.run(ctx, async (): Promise<Plan> => {
    const now = ctx.now.toISOString();
    const appends = await Promise.all(sessionIds.map(async (id) => {
      const session = await bus.load(sessionStream(id), sessionDecider);
      return { streamId: sessionStream(id), expectedRevision: session.expected, events: sessionDecider.decide({ type: 'RevokeSession', reason: 'password_changed', now }, session.state) };
    }));
    return { appends, body: null };
  });
}

/** After a sign-in was appended: ends its session when the hash its password was checked against is no longer the account's. */
export async function endIfPasswordChanged(bus: CommandBus, ctx: RequestContext, userId: string, sessionId: string, checkedHash: string): Promise<void> {
  const after = await loadUser(bus.events, userId);
  if (after.state.status !== 'registered' || after.state.passwordHash !== checkedHash) await endSessions(bus, ctx, [sessionId]);
}

/**
 * After a password change was appended at `position`: ends the user's other active sessions
 * started before it (those its plan could not yet see), with the read models caught up to now.
 */
export async function endSessionsStartedBefore(bus: CommandBus, views: AccountViews, ctx: RequestContext, userId: string, keep: string, position: number): Promise<void> {
  await bus.caughtUp(await bus.events.headPosition());
  const late: string[] = [];
  for (const id of (await views.activeSessions(userId, ctx.now.toISOString())).filter((s) => s !== keep)) {
    const [started] = await bus.events.readStream(sessionStream(id), { maxCount: 1 });
    if (started && started.position < position) late.push(id);
  }
  if (late.length > 0) await endSessions(bus, ctx, late);
}
