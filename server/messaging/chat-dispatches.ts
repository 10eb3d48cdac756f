import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { slackApps, slackInstallations } from '@/db/schema';
import { failedDelivery as failed, type Delivery } from '@/server/channels/message';
import type { OutboundMessage } from '@/server/channels/outlets';
import { slackBot } from '@/server/channels/slack/installations';
import { postFiles } from '@/server/channels/slack/files';
import { postMessage, usersLookupByEmail } from '@/server/channels/slack/web-api';

/*
 * send_message on Slack (spec 5: send_message reaches real providers), for an approved
 * dispatch. The approvals area claims the attempt before calling (approvals/delivery.ts), so a
 * send here happens at most once; these adapters only find who to post to and post.
 * - Slack: with the bot of the sending assistant's own Slack app, in the workspace it is installed
 *   in; `to` is a Slack member or conversation id (U…, W…, C…, G…, D…) or an email address the
 *   workspace knows (users.lookupByEmail). A bot cannot reach a workspace it is not installed in.
 *   Files go up with the words as one message (slack/files.ts); a member's files land in their DM.
 * (Teams is behind the channel port: server/channels/teams/adapter.ts.)
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


