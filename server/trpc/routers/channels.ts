import { listAssistants } from '@/server/assistants/service';
import { getRoster } from '@/server/assistants/roster';
import { z } from 'zod';
import { visibleAssistant } from '@/server/assistants/access';
import { CreateSlackAppBody, PhoneLineRequestBody } from '@/server/channels/contracts';
import { startSlack } from '@/server/channels/oauth';
import { SlackAppParams, SlackCredentialsBody } from '@/server/channels/slack/contracts';
import { mySlackApp, setSlackAppCredentials } from '@/server/channels/slack/credentials';
import { createSlackApp } from '@/server/channels/slack-apps';
import { myPhoneLineRequest, requestPhoneLine } from '@/server/channels/phone-lines';
import { gmailSettings } from '@/server/channels/gmail/config';
import { graphSettings } from '@/server/channels/graph/config';
import { disconnectMailbox, mailboxStatus } from '@/server/mailboxes/service';
import { router, userProcedure } from '../init';

/** Where a redirect answer points. */
function locationOf(answer: unknown): string {
  const headers = (answer as { headers?: Headers | Record<string, string> }).headers;
  const location = headers instanceof Headers ? headers.get('location') : (headers?.Location ?? headers?.location);
  if (!location) throw new Error('the Slack flow did not answer with a redirect');
  return location;
}

const Assistant = z.object({ assistantId: z.string().min(1).max(100) });

/**
 * What the hosted app is shown of a person's own Slack app: its status, where its credentials come
 * from and its Client ID, the workspaces it is installed in. Never a secret.
 */
function shownSlackApp(app: { id: string; status: string; credentials: { clientId: string | null; source: 'app' | 'deployment' | 'none' }; installations: Array<{ teamId: string; installedAt: string }> }) {
  return {
    id: app.id,
    status: app.status,
    credentials: { clientId: app.credentials.clientId, source: app.credentials.source },
    installations: app.installations.map((i) => ({ teamId: i.teamId, installedAt: i.installedAt })),
  };
}

/**
 * Connected channels: each assistant the person can see with its per-user Slack status (GET
 * /assistants' `slack`) and their own Slack app for it, their roster, their phone line request and
 * their mailbox.
 */
export const channelsRouter = router({
  assistants: userProcedure.query(({ ctx }) => listAssistants(ctx.db, ctx.actor, { page: 1, perPage: 100 })),
  roster: userProcedure.query(({ ctx }) => getRoster(ctx.db, ctx.actor, ctx.actor.user.id)),
  phoneLine: userProcedure.query(({ ctx }) => myPhoneLineRequest(ctx.db, ctx.actor)),
  /**
   * Starts linking the person's Slack identity to an assistant (GET /oauth/slack/assistant/link's
   * service): the begin link the browser then opens, which binds the flow to it.
   */
  slackLink: userProcedure.input(Assistant).mutation(async ({ ctx, input }) => {
    const answer = await startSlack(ctx.db, ctx.actor, input.assistantId, 'link', `${ctx.site.origin}/api/oauth/slack/assistant/link`);
    return { url: locationOf(answer) };
  }),
  /**
   * The person's own Slack app for an assistant they can see (null until they create one); an
   * assistant they cannot see is 404, as every assistant route answers.
   */
  slackApp: userProcedure.input(Assistant).query(async ({ ctx, input }) => {
    await visibleAssistant(ctx.db, ctx.actor, input.assistantId);
    const app = await mySlackApp(ctx.db, ctx.actor, input.assistantId);
    return { slackApp: app && { ...shownSlackApp(app), createAppUrl: app.createAppUrl } };
  }),
  /**
   * Creates the person's own (workspace) Slack app for the assistant and its manifest (POST
   * /assistants/{assistantId}/slack-apps' service); repeating returns the existing app.
   */
  createSlackApp: userProcedure.input(Assistant.extend({ botDisplayName: CreateSlackAppBody.shape.botDisplayName })).mutation(async ({ ctx, input }) => {
    const out = await createSlackApp(ctx.db, ctx.actor, input.assistantId, { kind: 'workspace', botDisplayName: input.botDisplayName }, `${ctx.site.origin}/api/assistants/${encodeURIComponent(input.assistantId)}/slack-apps`);
    return { created: out.created, slackApp: { id: out.body.slackApp.id, status: out.body.slackApp.status }, createAppUrl: out.body.manifest.createAppUrl };
  }),
  /**
   * Hands over the app's credentials from Slack's Basic Information page (PUT
   * /slack-apps/{appId}/credentials' service): the secrets are sealed and never answered.
   */
  saveSlackAppCredentials: userProcedure.input(SlackAppParams.extend(SlackCredentialsBody.shape)).mutation(async ({ ctx, input }) => {
    const { appId, ...credentials } = input;
    const { slackApp } = await setSlackAppCredentials(ctx.db, ctx.actor, appId, credentials);
    return { slackApp: shownSlackApp(slackApp) };
  }),
  /**
   * Starts installing the assistant's Slack app in a workspace (GET
   * /oauth/slack/assistant/authorize's service): the begin link the browser then opens.
   */
  slackInstallLink: userProcedure.input(Assistant).mutation(async ({ ctx, input }) => {
    const answer = await startSlack(ctx.db, ctx.actor, input.assistantId, 'install', `${ctx.site.origin}/api/oauth/slack/assistant/authorize`);
    return { url: locationOf(answer) };
  }),
  requestPhoneLine: userProcedure.input(PhoneLineRequestBody).mutation(({ ctx, input }) => requestPhoneLine(ctx.db, ctx.actor, input)),
  /** The person's own mailbox (GET /mailbox's service) and which providers this deployment can connect. */
  mailbox: userProcedure.query(async ({ ctx }) => ({
    ...(await mailboxStatus(ctx.db, ctx.actor)),
    providers: { gmail: gmailSettings() !== null, outlook: graphSettings() !== null },
  })),
  disconnectMailbox: userProcedure.mutation(({ ctx }) => disconnectMailbox(ctx.db, ctx.actor)),
});
