import { z } from 'zod';
import { actsAsUser } from '@/server/access/actor';
import { consoleDirectory } from '@/server/console/directory';
import { addConsoleMember, consoleMembership, listConsoleMembers, removeConsoleMember, setConsoleRole } from '@/server/console/members';
import { consoleOverview } from '@/server/console/overview';
import { consoleRoles } from '@/server/console/roles';
import { publicProcedure, router } from '../init';
import { consoleAccessRouter } from './console-access';
import { consoleAuditRouter } from './console-audit';
import { consoleChannelsRouter } from './console-channels';
import { consoleLimitsRouter } from './console-limits';
import { consoleOwner, consoleProcedure } from './console-procedures';
import { consoleSettingsRouter } from './console-settings';
import { consoleWebhooksRouter } from './console-webhooks';

const Member = z.object({ memberId: z.string().min(1).max(64) });

/**
 * The console at /console (spec 6): everything the admin CLI does for one account, as pages, for
 * the account's console members. Reads are open to every role; changes need developer (owner for
 * members); each change is recorded by its service with the member as the actor.
 */
export const consoleRouter = router({
  /** Whether the signed-in person is a console member (the main navigation shows "Console" then); null otherwise, never an error. */
  membership: publicProcedure.query(async ({ ctx }) => {
    const session = ctx.actor;
    if (!session || !actsAsUser(session)) return null;
    const member = await consoleMembership(ctx.db, session.accountId, session.user.id);
    return member ? { role: member.role } : null;
  }),
  /** Who is at the console: their role decides which controls the pages show. */
  me: consoleProcedure.query(({ ctx }) => ({ memberId: ctx.member.id, role: ctx.member.role, email: ctx.session.user.email, name: ctx.session.user.name, account: { id: ctx.account.id, name: ctx.account.name } })),
  overview: consoleProcedure.query(({ ctx }) => consoleOverview(ctx.db, ctx.actor.accountId, ctx.actor)),
  directory: consoleProcedure.query(({ ctx }) => consoleDirectory(ctx.db, ctx.actor.accountId, ctx.actor)),

  members: consoleProcedure.query(({ ctx }) => listConsoleMembers(ctx.db, ctx.actor, ctx.actor.accountId)),
  addMember: consoleOwner
    .input(z.object({ email: z.string().max(320), role: z.enum(consoleRoles).default('developer') }))
    .mutation(({ ctx, input }) => addConsoleMember(ctx.db, ctx.actor, { accountId: ctx.actor.accountId, email: input.email, role: input.role })),
  setMemberRole: consoleOwner
    .input(Member.extend({ role: z.enum(consoleRoles) }))
    .mutation(({ ctx, input }) => setConsoleRole(ctx.db, ctx.actor, { accountId: ctx.actor.accountId, memberId: input.memberId, role: input.role })),
  removeMember: consoleOwner.input(Member).mutation(({ ctx, input }) => removeConsoleMember(ctx.db, ctx.actor, { accountId: ctx.actor.accountId, memberId: input.memberId })),

  settings: consoleSettingsRouter,
  access: consoleAccessRouter,
  limits: consoleLimitsRouter,
  channels: consoleChannelsRouter,
  webhooks: consoleWebhooksRouter,
  audit: consoleAuditRouter,
});
