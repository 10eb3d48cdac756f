import { and, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants } from '@/db/schema';
import { failedDelivery as failed, type Delivery, type OutboundChannelMessage } from '@/server/channels/message';
import { guardedOutlet, type ChannelOutlet } from '@/server/channels/outlets';
import { teamsBotConfig } from '@/server/channels/teams/config';
import { replyToActivity, sendToConversation } from '@/server/channels/teams/connector';
import { conversationById, conversationOfUser } from '@/server/channels/teams/conversations';
import { parseTeamsRef } from '@/server/channels/teams/refs';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { teamsDispatch } from './chat-dispatches';

/*
 * The sending half of the Teams adapter (registered by server/compose/channels.ts): a chat turn's
 * answer as a reply to the user's message in their 1:1 chat, and a notice for a user whose
 * preferred channel is Teams as a proactive message in that chat. Both through the Bot Connector
 * (connector.ts), at the serviceUrl stored for the conversation. Without the bot's credentials, or
 * a conversation the user started, a send fails with the reason.
 */

async function send(db: Db, m: OutboundChannelMessage): Promise<Delivery> {
  const cfg = teamsBotConfig();
  if (!cfg) return failed('no provider configured for teams');
  if (m.kind === 'reply') {
    const ref = parseTeamsRef(m.inReplyTo);
    if (!ref) return failed('a Teams reply must name the Teams message it answers');
    const conversation = await conversationById(db, ref.conversationId);
    if (!conversation) return failed('the Teams conversation is not known');
    return replyToActivity(cfg, conversation.serviceUrl, conversation.conversationId, ref.activityId, { type: 'message', text: m.text, textFormat: 'plain' });
  }
  const to = m.to[0];
  const [assistant] = m.from
    ? await db.select({ accountId: assistants.accountId }).from(assistants).where(and(sql`lower(${assistants.email}) = ${m.from.toLowerCase()}`, isNull(assistants.deletedAt)))
    : [];
  if (!to || !assistant) return failed('the notice names no user to find in Teams');
  const user = await findUserByVerifiedEmail(db, assistant.accountId, to);
  const conversation = user ? await conversationOfUser(db, assistant.accountId, user.id) : null;
  if (!conversation) return failed('the user has not started a chat with the Teams bot');
  const text = m.subject ? `${m.subject}\n\n${m.text}` : m.text;
  return sendToConversation(cfg, conversation.serviceUrl, conversation.conversationId, { type: 'message', text, textFormat: 'plain' });
}

/** Teams' outlet (channels/outlets.ts): answers and notices, and send_message's approved dispatches. */
export const teamsOutlet = (db: () => Db): ChannelOutlet => guardedOutlet('Teams', { channel: 'teams', send: (m) => send(db(), m), dispatch: (m) => teamsDispatch(db(), m) });
