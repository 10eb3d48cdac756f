import { z } from 'zod';
import { phoneChannels } from '@/db/schema/channel-names';
import { listPhoneLineRequests } from '@/server/channels/phone-line-requests';
import { assignPhoneLine, dismissPhoneLine } from '@/server/channels/phone-lines';
import { CreateSlackAppBody } from '@/server/channels/contracts';
import { createSlackApp } from '@/server/channels/slack-apps';
import { consoleChannelApps } from '@/server/console/channel-apps';
import { router } from '../init';
import { consoleChange, consoleProcedure } from './console-procedures';

const Request = z.object({ requestId: z.string().min(1).max(64) });

/**
 * Phone-line requests (the admin CLI's assign-phone-line and dismiss-phone-line, for this account's
 * requests only), and the workplace chat apps: every assistant's Slack app, the account's
 * marketplace app for an account-wide assistant (POST /assistants/{id}/slack-apps with an
 * account key), and the Teams bot's connections.
 */
export const consoleChannelsRouter = router({
  phoneLines: consoleProcedure
    .input(z.object({ status: z.enum(['pending', 'fulfilled', 'dismissed']).optional() }).prefault({}))
    .query(({ ctx, input }) => listPhoneLineRequests(ctx.db, ctx.actor.accountId, ctx.actor, input)),
  fulfilPhoneLine: consoleChange
    .input(Request.extend({ number: z.string().trim().min(3, 'must be a phone number').max(32), channels: z.array(z.enum(phoneChannels)).max(4).optional() }))
    .mutation(({ ctx, input }) => assignPhoneLine(ctx.db, { requestId: input.requestId, number: input.number, channels: input.channels?.length ? input.channels.join(',') : null, by: ctx.actor })),
  dismissPhoneLine: consoleChange
    .input(Request.extend({ reason: z.string().trim().max(500).optional() }))
    .mutation(({ ctx, input }) => dismissPhoneLine(ctx.db, { requestId: input.requestId, reason: input.reason ?? null, by: ctx.actor })),

  apps: consoleProcedure.query(({ ctx }) => consoleChannelApps(ctx.db, ctx.actor.accountId, ctx.actor)),
  createMarketplaceApp: consoleChange
    .input(z.object({ assistantId: z.string().min(1).max(64), botDisplayName: CreateSlackAppBody.shape.botDisplayName }))
    .mutation(async ({ ctx, input }) => {
      const out = await createSlackApp(ctx.db, ctx.actor, input.assistantId, { kind: 'marketplace', botDisplayName: input.botDisplayName }, `${ctx.site.origin}/api/assistants/${encodeURIComponent(input.assistantId)}/slack-apps`);
      return out.body;
    }),
});
