import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { teamsConversations, type TeamsConversationRow } from '@/db/schema';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import type { ChannelAdapter, Connection, SendRequest } from '../adapter';
import { failedDelivery, type Delivery } from '../message';
import { assistantConnection, TEAMS_CONNECTION_ID, webhookConnection } from './bot';
import { teamsBotConfig } from './config';
import { replyToActivity, sendToConversation, updateActivity } from './connector';
import { conversationById, conversationOfUser } from './conversations';
import { offerFile, offerProblem } from './file-offers';
import { ADAPTIVE_CARD, audienceOfThread, closedCard, messageRefOf, outboundActivity, parseMessageRef, parseThread, personThread } from './transform';
import { parseTeamsWebhook, verifyTeamsWebhook } from './webhook';

/*
 * Microsoft Teams behind the channel port (server/channels/adapter.ts): the deployment's bot
 * (bot.ts), 1:1 chats only, Adaptive Card buttons (Action.Execute, answered in the invoke), card
 * edits through the Connector. Everything goes to a conversation the person started with the bot,
 * at the serviceUrl the Connector's token vouched for when they wrote (a bot cannot write first to
 * someone it never heard from). Files go on consent cards, uploaded to the person's OneDrive once
 * they allow them (file-offers.ts).
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The conversation a send goes to, in the connection's account only. */
async function conversationFor(db: Db, connection: Connection, req: Pick<SendRequest, 'thread' | 'to' | 'replyTo'>): Promise<TeamsConversationRow | string> {
  const ref = parseMessageRef(req.replyTo);
  if (ref) {
    // The conversation the answered message came from.
    const row = await conversationById(db, ref.conversationId);
    return row && row.accountId === connection.accountId ? row : 'the Teams conversation is not known';
  }
  const thread = parseThread(req.thread);
  if (thread) {
    const [row] = await db
      .select()
      .from(teamsConversations)
      .where(and(eq(teamsConversations.accountId, connection.accountId), eq(teamsConversations.tenantId, thread.tenantId), eq(teamsConversations.aadObjectId, thread.aadObjectId)))
      .orderBy(desc(teamsConversations.updatedAt))
      .limit(1);
    return row ?? 'the person has not started a chat with the Teams bot';
  }
  if (req.thread) return `"${req.thread}" is not a Teams chat`;
  const to = req.to?.trim() ?? '';
  if (!to) return 'the message names no Teams chat or person';
  if (!EMAIL.test(to)) return 'on Teams, send_message takes the email address of a person who has a chat with the assistant';
  const user = await findUserByVerifiedEmail(db, connection.accountId, to);
  const row = user ? await conversationOfUser(db, connection.accountId, user.id) : null;
  return row ?? `${to} has no Teams chat with the assistant: a Teams bot can only write to someone who has written to it`;
}

async function send(db: Db, req: SendRequest): Promise<Delivery> {
  const cfg = teamsBotConfig();
  if (!cfg) return failedDelivery('no provider configured for teams');
  if (req.connection.id !== TEAMS_CONNECTION_ID) return failedDelivery('not the Teams bot’s connection');
  if (!req.text.trim() && !req.files.length) return failedDelivery('nothing to send: no text and no file');
  const tooBig = offerProblem(req.files);
  if (tooBig) return failedDelivery(tooBig);
  const conversation = await conversationFor(db, req.connection, req);
  if (typeof conversation === 'string') return failedDelivery(conversation);
  const thread = personThread(conversation.tenantId, conversation.aadObjectId);
  const named = (d: Delivery): Delivery => (d.state === 'accepted' && d.providerMessageId ? { ...d, providerMessageId: messageRefOf(thread, conversation.conversationId, d.providerMessageId) } : d);
  let first: Delivery | null = null;
  if (req.text.trim()) {
    const activity = outboundActivity(req.text, req.buttons);
    // A reply threads on the message it answers where it names one (Teams shows a 1:1 chat flat either way).
    const replyTo = req.kind === 'reply' ? parseMessageRef(req.replyTo) : null;
    const d = replyTo
      ? await replyToActivity(cfg, conversation.serviceUrl, conversation.conversationId, replyTo.activityId, activity)
      : await sendToConversation(cfg, conversation.serviceUrl, conversation.conversationId, activity);
    if (d.state !== 'accepted') return d;
    first = named(d);
  }
  // Each file is offered on a consent card; it reaches the person's OneDrive once they allow it (file-offers.ts).
  for (const file of req.files) {
    const d = await offerFile(db, cfg, conversation, file);
    if (d.state !== 'accepted') return first ? { state: 'unknown', providerMessageId: first.providerMessageId, reason: `the words went, a file's card did not: ${'reason' in d ? d.reason : d.state}` } : d;
    first ??= named(d);
  }
  return first!;
}

export const teamsAdapter: ChannelAdapter = {
  channel: 'teams',
  label: 'Teams',
  capabilities: { buttons: true, edits: true, files: true },
  // The deployment's one bot: without its credentials nothing is sent on Teams and notices go by email.
  configured: () => teamsBotConfig() !== null,
  fixedWebhooks: [
    {
      path: '/teams/messages',
      name: 'messages',
      key: TEAMS_CONNECTION_ID,
      summary: 'Bot Framework messaging endpoint of the Teams bot (the Bot Connector’s JWT: OpenID metadata keys, issuer, audience = TEAMS_CLIENT_ID, serviceUrl claim)',
    },
  ],
  async connection(_db, key) {
    const cfg = teamsBotConfig();
    return cfg && key === TEAMS_CONNECTION_ID ? webhookConnection(cfg) : null;
  },
  async connectionFor(db, assistantId) {
    const cfg = teamsBotConfig();
    return cfg ? assistantConnection(db, cfg, assistantId) : null;
  },
  verifyWebhook: verifyTeamsWebhook,
  parseWebhook: parseTeamsWebhook,
  send,
  audienceOf: audienceOfThread,
  directThread: (person) => personThread(person.workspaceId, person.userId),
  async closeButtons(db, connection, at, line, words) {
    const cfg = teamsBotConfig();
    const ref = parseMessageRef(at.messageRef);
    const conversation = cfg && ref ? await conversationById(db, ref.conversationId) : null;
    if (!cfg || !ref || !conversation || conversation.accountId !== connection.accountId) return;
    await updateActivity(cfg, conversation.serviceUrl, conversation.conversationId, ref.activityId, { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD, content: closedCard(line, words) }] });
  },
};
