import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { slackApps, slackInstallations } from '@/db/schema';
import { failedDelivery as failed, type Delivery } from '@/server/channels/message';
import type { OutboundMessage } from '@/server/channels/outlets';
import { slackBot } from '@/server/channels/slack/installations';
import { postFiles } from '@/server/channels/slack/files';
import { postMessage, usersLookupByEmail } from '@/server/channels/slack/web-api';
import { teamsBotConfig } from '@/server/channels/teams/config';
import { sendToConversation } from '@/server/channels/teams/connector';
import { conversationOfUser } from '@/server/channels/teams/conversations';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';

/*
 * send_message on Slack and Teams (spec 5: send_message reaches real providers), for an approved
 * dispatch. The approvals area claims the attempt before calling (approvals/delivery.ts), so a
 * send here happens at most once; these adapters only find who to post to and post.
 * - Slack: with the bot of the sending assistant's own Slack app, in the workspace it is installed
 *   in; `to` is a Slack member or conversation id (U…, W…, C…, G…, D…) or an email address the
 *   workspace knows (users.lookupByEmail). A bot cannot reach a workspace it is not installed in.
 *   Files go up with the words as one message (slack/files.ts); a member's files land in their DM.
 * - Teams: a bot may only message a person who has a chat with it, so `to` is the email of a user
 *   of the account who started one; anyone else is refused with the reason.
 */

const SLACK_ID = /^[UWCGD][A-Z0-9]{6,}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The installations of the assistant's own Slack apps, newest first. */
async function assistantBots(db: Db, assistantId: string) {
  const apps = await db.select({ id: slackApps.id }).from(slackApps).where(and(eq(slackApps.assistantId, assistantId), eq(slackApps.status, 'active')));
  if (!apps.length) return [];
  const rows = await db
    .select({ appId: slackInstallations.appId, teamId: slackInstallations.teamId })
    .from(slackInstallations)
    .where(inArray(slackInstallations.appId, apps.map((a) => a.id)))
    .orderBy(desc(slackInstallations.updatedAt));
  const bots = [];
  for (const r of rows) {
    const bot = await slackBot(db, r.appId, r.teamId);
    if (bot) bots.push(bot);
  }
  return bots;
}

export async function slackDispatch(db: Db, m: OutboundMessage): Promise<Delivery> {
  if (!m.assistantId) return failed('the message names no assistant to send it as');
  const to = m.to.trim();
  if (!SLACK_ID.test(to) && !EMAIL.test(to)) return failed(`"${to}" is neither a Slack member or conversation id nor an email address`);
  const bots = await assistantBots(db, m.assistantId);
  if (!bots.length) return failed('the assistant has no Slack app installed in a workspace');
  const post = (token: string, channel: string) =>
    m.files?.length ? postFiles(token, { to: channel, text: m.body, files: m.files }) : postMessage(token, { channel, text: m.body });
  if (SLACK_ID.test(to)) return post(bots[0]!.token, to);
  for (const bot of bots) {
    const member = await usersLookupByEmail(bot.token, to);
    if (member) return post(bot.token, member.id);
  }
  return failed(`no member of the assistant's Slack workspaces has the address ${to}`);
}

export async function teamsDispatch(db: Db, m: OutboundMessage): Promise<Delivery> {
  const cfg = teamsBotConfig();
  if (!cfg) return failed('no provider configured for teams');
  if (!m.accountId) return failed('the message names no account');
  const to = m.to.trim();
  if (m.files?.length) return failed('a Teams message cannot carry files yet: nothing was sent');
  if (!EMAIL.test(to)) return failed('on Teams, send_message takes the email address of a person who has a chat with the assistant');
  const user = await findUserByVerifiedEmail(db, m.accountId, to);
  const conversation = user ? await conversationOfUser(db, m.accountId, user.id) : null;
  if (!conversation) return failed(`${to} has no Teams chat with the assistant: a Teams bot can only write to someone who has written to it`);
  return sendToConversation(cfg, conversation.serviceUrl, conversation.conversationId, { type: 'message', text: m.body, textFormat: 'plain' });
}

