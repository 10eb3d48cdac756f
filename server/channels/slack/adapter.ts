import type { Db } from '@/db/client';
import type { ChannelAdapter, Connection, SendRequest } from '../adapter';
import { failedDelivery, type Delivery } from '../message';
import { slackProgressAfterMs } from './config';
import { assistantBots, assistantConnection, webhookConnection } from './connections';
import { slackAppEndpoints } from './endpoints';
import { postFiles } from './files';
import { slackBot, type BotAccess } from './installations';
import { audienceOfThread, blocksOf, channelOf, isMention, messageRefOf, parseMessageRef, parseThread, textBlocks, threadOf, type SlackThread } from './transform';
import { postMessage, updateMessage, usersInfo, usersLookupByEmail } from './web-api';
import { parseSlackWebhook, verifySlackWebhook } from './webhook';

/*
 * Slack behind the channel port (server/channels/adapter.ts): each of an assistant's Slack apps is
 * a connection (connections.ts), its bot in each workspace posts. DMs and mentions come in
 * (webhook.ts; a mention is answered in the writer's DM), Block Kit buttons carry the core's
 * binding, cards and progress lines are edited with chat.update, files go up with the words as one
 * message (files.ts) and come in from Slack's file host (file-download.ts). A send is reported sent
 * only when Slack took it (web-api.ts); without an installed bot it fails.
 */

const SLACK_ID = /^[UWCGD][A-Z0-9]{6,}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * A sent message's reference in the thread it was sent into: Slack answers with the channel it
 * landed in (a member's DM when sent to the member) and its ts (files: their ids).
 */
function landed(d: Delivery, thread: SlackThread): Delivery {
  if (d.state !== 'accepted' || !d.providerMessageId) return d;
  const [channel, id] = d.providerMessageId.split('/') as [string, string];
  return { ...d, providerMessageId: messageRefOf(threadOf(thread), id, channel !== thread.conversation ? channel : null) };
}

/** Posts into `thread` (its Slack thread, if any), at `channel` when the message must land in a known DM. */
async function post(bot: BotAccess, thread: SlackThread, req: Pick<SendRequest, 'text' | 'files' | 'buttons'>, o: { text?: string; channel?: string; threadTs?: string | null } = {}): Promise<Delivery> {
  const text = o.text ?? req.text;
  const at = { to: o.channel ?? thread.conversation, threadTs: o.threadTs === undefined ? thread.threadTs : o.threadTs };
  if (req.files.length) return landed(await postFiles(bot.token, { to: at.to, text, threadTs: at.threadTs, files: req.files }), thread);
  if (!text.trim()) return failedDelivery('nothing to send: no text and no file');
  const blocks = req.buttons?.length ? blocksOf(text, req.buttons) : undefined;
  return landed(await postMessage(bot.token, { channel: at.to, threadTs: at.threadTs, text: text.slice(0, 40_000), ...(blocks ? { blocks } : {}) }), thread);
}

/** send_message to a person by id or address: with the bots of every app of the assistant, the newest installation first. */
async function dispatchTo(db: Db, connection: Connection, to: string, req: SendRequest): Promise<Delivery> {
  if (!SLACK_ID.test(to) && !EMAIL.test(to)) return failedDelivery(`"${to}" is neither a Slack member or conversation id nor an email address`);
  const bots = await assistantBots(db, connection.assistantId);
  if (!bots.length) return failedDelivery('the assistant has no Slack app installed in a workspace');
  const at = (bot: BotAccess, conversation: string) => post(bot, { appId: bot.installation.appId, teamId: bot.installation.teamId, conversation, threadTs: null }, req);
  if (SLACK_ID.test(to)) return at(bots[0]!, to);
  for (const bot of bots) {
    const member = await usersLookupByEmail(bot.token, to);
    if (member) return at(bot, member.id);
  }
  return failedDelivery(`no member of the assistant's Slack workspaces has the address ${to}`);
}

async function send(db: Db, req: SendRequest): Promise<Delivery> {
  const ref = req.kind === 'reply' ? parseMessageRef(req.replyTo) : null;
  // A reference written before the port names its conversation itself (replies.ts passes it as the thread).
  const thread = parseThread(req.thread) ?? ref ?? parseMessageRef(req.thread);
  if (!thread) return req.kind === 'dispatch' && req.to ? dispatchTo(db, req.connection, req.to.trim(), req) : failedDelivery(`"${req.thread ?? req.to ?? ''}" is not a Slack conversation`);
  // The thread's app is the connection's: a thread of another app (another assistant's) is never posted in.
  if (thread.appId !== req.connection.id) return failedDelivery('the Slack conversation belongs to another app');
  const bot = await slackBot(db, thread.appId, thread.teamId);
  if (!bot) return failedDelivery('the Slack app is not installed in that workspace any more');
  if (!ref) return post(bot, thread, req);
  // A mention in a channel is answered in the writer's DM (a channel is other people), saying where it came from;
  // a DM is answered under the message, or in the Slack thread it was written in.
  if (isMention(ref)) return post(bot, { ...ref, threadTs: null }, req, { text: `About your mention in <#${ref.in}>:\n${req.text}` });
  return post(bot, ref, req, { channel: channelOf(ref), threadTs: ref.threadTs ?? ref.ts });
}

/** The bot and message a reference names, in the connection's app only. */
async function postedMessage(db: Db, connection: Connection, messageRef: string) {
  const ref = parseMessageRef(messageRef);
  if (!ref || ref.appId !== connection.id) return null;
  const bot = await slackBot(db, ref.appId, ref.teamId);
  return bot ? { bot, ref } : null;
}

export const slackAdapter: ChannelAdapter = {
  channel: 'slack',
  label: 'Slack',
  capabilities: { buttons: true, files: true, edits: true },
  endpoints: slackAppEndpoints,
  fixedWebhooks: [
    {
      path: '/slack/events/{appId}',
      name: 'events',
      param: 'appId',
      summary: 'Slack Events API for one assistant’s app (X-Slack-Signature v0 with the app’s signing secret, five minutes); url_verification answered; events kept once by event_id',
    },
    {
      path: '/slack/interactivity/{appId}',
      name: 'interactivity',
      param: 'appId',
      summary: 'Slack block actions for one assistant’s app: Approve and Reject buttons of approval cards (signed like events)',
    },
  ],
  connection: webhookConnection,
  connectionFor: assistantConnection,
  verifyWebhook: verifySlackWebhook,
  parseWebhook: parseSlackWebhook,
  send,
  audienceOf: audienceOfThread,
  // A member's id is the bot's DM with them (Slack opens it on the first post).
  directThread: (person) => threadOf({ appId: person.linkedThrough ?? '', teamId: person.workspaceId, conversation: person.userId, threadTs: null }),
  async closeButtons(db, connection, at, line, words) {
    const found = await postedMessage(db, connection, at.messageRef);
    const text = words ? `${words}\n\n${line}` : line;
    if (found) await updateMessage(found.bot.token, channelOf(found.ref), found.ref.ts, text, textBlocks(text));
  },
  async editText(db, connection, messageRef, text) {
    const found = await postedMessage(db, connection, messageRef);
    if (found) await updateMessage(found.bot.token, channelOf(found.ref), found.ref.ts, text);
  },
  progressAfterMs: slackProgressAfterMs,
  async nameOf(db, connection, person) {
    const bot = await slackBot(db, connection.id, person.workspaceId);
    const u = bot ? await usersInfo(bot.token, person.userId).catch(() => null) : null;
    return u?.profile?.display_name || u?.real_name || u?.name || null;
  },
};
