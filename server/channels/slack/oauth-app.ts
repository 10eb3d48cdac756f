import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { slackApps } from '@/db/schema';
import { badRequest } from '@/server/http/errors';
import type { OAuthState } from '../oauth-state';
import { slackConfig } from '../providers';
import { slackAppFor, slackAppSecrets } from './credentials';
import { linkChannelIdentity } from './identities';
import { saveSlackInstallation } from './installations';

/*
 * Which Slack client an install or link flow goes through (issue 33: each assistant its own
 * app). The start picks the person's active workspace app for the assistant (or the account's
 * marketplace app for an account-wide one) and names it in the signed state; the begin link and
 * the callback then use that app's client id and secret. An assistant with no app ready falls
 * back to the deployment's client (SLACK_CLIENT_ID), as before per-app credentials existed.
 */

export type SlackClient = { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string; appId: string | null };

/** The state's `target` for a Slack flow: the app it goes through, when there is one. */
export async function slackFlowTarget(db: Db, userId: string, assistant: { id: string; scope: string }): Promise<Record<string, string>> {
  const found = await slackAppFor(db, userId, assistant);
  if (found.app) return { appId: found.app.id };
  if (found.pending && !process.env.SLACK_CLIENT_ID) {
    throw badRequest('The assistant’s Slack app is waiting for its credentials: set them with PUT /slack-apps/{appId}/credentials first', {}, 'slack_app_pending_credentials');
  }
  slackConfig();
  return {};
}

/** The client a flow's state names. */
export async function slackClientFor(db: Db, state: Pick<OAuthState, 'target' | 'accountId'>): Promise<SlackClient> {
  const env = () => slackConfig();
  const appId = state.target?.appId;
  if (!appId) return { ...env(), appId: null };
  const [app] = await db.select().from(slackApps).where(and(eq(slackApps.id, appId), eq(slackApps.accountId, state.accountId)));
  const secrets = app ? await slackAppSecrets(db, app) : null;
  if (!app || !secrets) throw badRequest('The Slack app of this connection no longer has credentials; start again', {}, 'slack_app_pending_credentials');
  const urls = { authorizeUrl: process.env.SLACK_OAUTH_AUTHORIZE_URL ?? 'https://slack.com/oauth/v2/authorize', tokenUrl: process.env.SLACK_OAUTH_TOKEN_URL ?? 'https://slack.com/api/oauth.v2.access' };
  return { clientId: secrets.clientId, clientSecret: secrets.clientSecret, ...urls, appId: app.id };
}

type Tokens = Record<string, unknown>;
const idOf = (v: unknown) => (typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null);

/**
 * What a finished Slack flow records besides the connection: an install keeps the app's bot
 * (token sealed) for its workspace; a link proves who the person is in that workspace (Slack's
 * own answer names `authed_user`), which is what makes their messages and button presses theirs.
 */
export async function recordSlackFlow(db: Db, state: OAuthState, client: SlackClient, tokens: Tokens, connectionId: string): Promise<void> {
  const teamId = idOf(tokens.team);
  if (!teamId) return;
  if (state.purpose === 'install' && client.appId && typeof tokens.access_token === 'string') {
    await saveSlackInstallation(db, {
      accountId: state.accountId,
      appId: client.appId,
      teamId,
      botUserId: typeof tokens.bot_user_id === 'string' ? tokens.bot_user_id : null,
      botToken: tokens.access_token,
      installedByUserId: state.userId,
      connectionId,
    });
  }
  // Both flows name the person who went through them: an install is done by a signed-in Slack user too.
  const slackUserId = idOf(tokens.authed_user);
  if (slackUserId && state.userId) {
    await linkChannelIdentity(db, { accountId: state.accountId, userId: state.userId, provider: 'slack', workspaceId: teamId, externalUserId: slackUserId, appId: client.appId, connectionId });
  }
}
