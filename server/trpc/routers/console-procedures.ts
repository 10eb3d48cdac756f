import { TRPCError } from '@trpc/server';
import { actsAsUser } from '@/server/access/actor';
import { noteRequest } from '@/server/audit/request-meta';
import { consoleActorFor } from '@/server/console/actor';
import { requireConsoleRole } from '@/server/console/roles';
import { publicProcedure } from '../init';

/**
 * A console member of the account the hosted domain names (spec 6): signed in as usual, then
 * looked up in console_members on every call (once per page render, whose calls share it), so a
 * removed member loses the console with their next request. The
 * procedure's actor is the member's console actor (account-wide, acting as nobody); `session` is
 * their own. Signed out: UNAUTHORIZED; signed in but not a member: NOT_FOUND, as if there were no
 * console. Changes note where they came from, so their audit events say.
 */
export const consoleProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const session = ctx.actor;
  if (!session || !actsAsUser(session)) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first' });
  const found = await (ctx.memo ? (ctx.memo.consoleMember ??= consoleActorFor(ctx.db, session)) : consoleActorFor(ctx.db, session));
  if (!found) throw new TRPCError({ code: 'NOT_FOUND', message: 'Not found' });
  noteRequest(found.actor, { ip: ctx.clientIp, userAgent: null, requestId: null });
  return next({ ctx: { ...ctx, session, actor: found.actor, member: found.member } });
});

/** A change: developers and owners; a viewer is FORBIDDEN (`console_role_required`) and nothing changes. */
export const consoleChange = consoleProcedure.use(({ ctx, next }) => {
  requireConsoleRole(ctx.actor, 'developer');
  return next();
});

/** Managing console members: owners only. */
export const consoleOwner = consoleProcedure.use(({ ctx, next }) => {
  requireConsoleRole(ctx.actor, 'owner');
  return next();
});
