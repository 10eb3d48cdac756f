import { and, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, slackApps } from '@/db/schema';
import { failedDelivery as failed, type Delivery, type OutboundChannelMessage } from '@/server/channels/message';
import { guardedOutlet, type ChannelOutlet } from '@/server/channels/outlets';
import { identitiesOf } from '@/server/channels/slack/identities';
import { slackBot, type BotAccess } from '@/server/channels/slack/installations';
import { parseSlackRef } from '@/server/channels/slack/refs';
import { postMessage } from '@/server/channels/slack/web-api';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { slackDispatch } from './chat-dispatches';

/*
 * The sending half of the Slack adapter (registered by server/compose/channels.ts). Two kinds of
 * message go out:
 * - a chat turn's answer (replies.ts): it answers a Slack message, whose reference names the app,
 *   workspace, conversation and thread, so it is posted with that app's bot into that thread;
 * - a notice (server/notices/deliver.ts) for a user whose preferred channel is Slack: posted to their DM
 *   with the bot of the app their identity is linked through, preferring the notice's assistant.
 * Nothing is reported sent unless Slack took it (web-api.ts); without an installed bot it fails.
 */

async function answer(db: Db, m: OutboundChannelMessage): Promise<Delivery> {
  const ref = parseSlackRef(m.inReplyTo);
  if (!ref) return failed('a Slack reply must name the Slack message it answers');
  const bot = await slackBot(db, ref.appId, ref.teamId);
  if (!bot) return failed('the Slack app is not installed in that workspace any more');
  // A mention in a channel is answered in the owner's DM (a channel is other people), saying where it came from.
  const text = ref.mentionedIn ? `About your mention in <#${ref.mentionedIn}>:\n${m.text}` : m.text;
  return postMessage(bot.token, { channel: ref.channel, threadTs: ref.threadTs, text });
}

/** The bot that can DM a user: through an app their identity was linked with, the assistant's own first. */
export async function botForUser(db: Db, userId: string, assistantId: string | null): Promise<{ bot: BotAccess; slackUserId: string } | null> {
  const links = await identitiesOf(db, userId, 'slack');
  const appIds = links.flatMap((l) => (l.appId ? [l.appId] : []));
  const apps = appIds.length ? await db.select({ id: slackApps.id, assistantId: slackApps.assistantId }).from(slackApps).where(inArray(slackApps.id, appIds)) : [];
  const ranked = [...links].sort((a, b) => Number(apps.find((x) => x.id === b.appId)?.assistantId === assistantId) - Number(apps.find((x) => x.id === a.appId)?.assistantId === assistantId));
  for (const link of ranked) {
    if (!link.appId) continue;
    const bot = await slackBot(db, link.appId, link.workspaceId);
    if (bot) return { bot, slackUserId: link.externalUserId };
  }
  return null;
}

async function notice(db: Db, m: OutboundChannelMessage): Promise<Delivery> {
  const to = m.to[0];
  if (!to) return failed('no recipient');
  const [assistant] = m.from
    ? await db.select({ id: assistants.id, accountId: assistants.accountId }).from(assistants).where(and(sql`lower(${assistants.email}) = ${m.from.toLowerCase()}`, isNull(assistants.deletedAt)))
    : [];
  if (!assistant) return failed('the notice names no assistant to find the user’s Slack by');
  const user = await findUserByVerifiedEmail(db, assistant.accountId, to);
  if (!user) return failed('the recipient is not a user of the account');
  const dm = await botForUser(db, user.id, assistant.id);
  if (!dm) return failed('the user has no Slack identity linked to an installed Slack app');
  const text = m.subject ? `*${m.subject}*\n${m.text}` : m.text;
  return postMessage(dm.bot.token, { channel: dm.slackUserId, text });
}

/** Slack's outlet (channels/outlets.ts): answers and notices, and send_message's approved dispatches. */
export const slackOutlet = (db: () => Db): ChannelOutlet =>
  guardedOutlet('Slack', {
    channel: 'slack',
    send: (m) => (m.kind === 'reply' ? answer(db(), m) : notice(db(), m)),
    dispatch: (m) => slackDispatch(db(), m),
  });
