import type { OutboundButton, ThreadAudience, ThreadRef } from '../adapter';
import type { SlackMessageEvent } from './contracts';
import type { Block } from './web-api';

/*
 * Slack to and from the port's common form, as pure functions (issue 41).
 *
 * A thread names the app whose bot posts in it, the workspace, the conversation and, when the
 * message is in a Slack thread, that thread's ts: `slack:<appId>:<teamId>:<conversation>[:<threadTs>]`.
 * A 1:1 conversation is named by the person (their member id, U…/W…: Slack posts to a member in
 * the app's DM with them), so the thread says who reads it; any other conversation by its channel
 * id. A message reference is `<thread>#<ts>`, and `<thread>#<ts>@<channel>` when the message is
 * in a channel the thread does not name: the DM's own id (D…), which editing it needs, or for a
 * mention the channel it was written in (its answer goes to the writer's DM, the thread).
 *
 * References written before Slack moved behind the port
 * (`slack:<appId>:<teamId>:<channel>:<threadTs|->:<ts>[:<mentionedIn>]`) are still read.
 */

export type SlackThread = { appId: string; teamId: string; conversation: string; threadTs: string | null };
/** `in`: the channel the message is in, when not the thread's conversation (a DM's id, a mention's channel). */
export type SlackMessageRef = SlackThread & { ts: string; in: string | null };

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

export const APPROVE_ACTION = 'steward_cart_approve';
export const REJECT_ACTION = 'steward_cart_reject';

export const threadOf = (t: SlackThread): ThreadRef => `slack:${t.appId}:${t.teamId}:${t.conversation}${t.threadTs ? `:${t.threadTs}` : ''}`;

export const messageRefOf = (thread: ThreadRef, ts: string, inChannel?: string | null) => `${thread}#${ts}${inChannel ? `@${inChannel}` : ''}`;

export function parseThread(value: string | null | undefined): SlackThread | null {
  if (!value?.startsWith('slack:') || value.includes('#')) return null;
  const [, appId, teamId, conversation, threadTs, ...rest] = value.split(':');
  if (rest.length || ![appId, teamId, conversation].every((x) => x && ID.test(x))) return null;
  if (threadTs !== undefined && !TS.test(threadTs)) return null;
  return { appId: appId!, teamId: teamId!, conversation: conversation!, threadTs: threadTs ?? null };
}

/** A message reference of either spelling (the port's, or the one written before it). */
export function parseMessageRef(value: string | null | undefined): SlackMessageRef | null {
  if (!value?.startsWith('slack:')) return null;
  if (value.includes('#')) {
    const [threadPart, idPart = '', ...more] = value.split('#');
    const thread = parseThread(threadPart);
    const [ts, inChannel, ...rest] = idPart.split('@');
    if (!thread || more.length || rest.length || !TS.test(ts ?? '') || (inChannel !== undefined && !ID.test(inChannel))) return null;
    return { ...thread, ts: ts!, in: inChannel ?? null };
  }
  const [, appId, teamId, channel, threadTs, ts, mentionedIn, ...rest] = value.split(':');
  if (rest.length || ![appId, teamId, channel].every((x) => x && ID.test(x)) || !TS.test(ts ?? '')) return null;
  if (threadTs !== '-' && !TS.test(threadTs ?? '')) return null;
  if (mentionedIn !== undefined && !ID.test(mentionedIn)) return null;
  return { appId: appId!, teamId: teamId!, conversation: channel!, threadTs: threadTs === '-' ? null : threadTs!, ts: ts!, in: mentionedIn ?? null };
}

/** A member (the app's DM with them) or a DM is read by that one person; any other conversation has members the bot does not list. */
export const isDirect = (conversation: string) => /^[DUW]/.test(conversation);

/** A reference to a message written in a channel (a mention), whose answer goes to the writer's DM, not under it. */
export const isMention = (ref: SlackMessageRef) => ref.in !== null && !ref.in.startsWith('D');

/** The channel a message is in, for chat.update: a DM's own id, else the thread's conversation. */
export const channelOf = (ref: SlackMessageRef) => (ref.in?.startsWith('D') ? ref.in : ref.conversation);

export function audienceOfThread(value: ThreadRef): ThreadAudience {
  const t = parseThread(value) ?? parseMessageRef(value);
  if (t && isDirect(t.conversation)) return { kind: 'direct', person: t.conversation };
  return { kind: 'room', where: t ? `the Slack conversation <#${t.conversation}>` : 'a Slack conversation' };
}

/**
 * What routing does with an event: a DM (message.im) or an app mention of a person is a message;
 * edits, deletions, joins and every bot's messages (the assistant's own replies first) are not
 * people writing; a message with files (`file_share`, its text possibly empty) is. Channel
 * messages that do not mention the assistant are not for it (mentions come as app_mention).
 */
export type Routing = { kind: 'ignored'; reason: string } | { kind: 'dm' | 'mention'; event: SlackMessageEvent };

export function routingOf(type: string, e: SlackMessageEvent | null, botUserId: string | null): Routing {
  if (type !== 'message' && type !== 'app_mention') return { kind: 'ignored', reason: `event ${type} is not routed` };
  if (!e) return { kind: 'ignored', reason: 'not a message this layer reads' };
  if ((e.subtype && e.subtype !== 'file_share') || e.bot_id || !e.user || (botUserId && e.user === botUserId)) return { kind: 'ignored', reason: 'not a person’s new message' };
  if (type === 'message' && e.channel_type === 'im') return { kind: 'dm', event: e };
  if (type === 'app_mention') return { kind: 'mention', event: e };
  return { kind: 'ignored', reason: 'a channel message without a mention' };
}

/**
 * Where a message is, in the common form. A DM is answered under the message (or in the thread it
 * was written in), and is its own conversation. A mention in a channel is answered in the writer's
 * DM: everyone in the channel would read an answer there, and an answer to the owner may carry what
 * only the owner may see (anything meant for others is a staged dispatch, never a chat reply); each
 * channel thread the assistant is mentioned in is its own conversation.
 */
export function placeOf(appId: string, teamId: string, r: Extract<Routing, { kind: 'dm' | 'mention' }>) {
  const e = r.event;
  if (r.kind === 'dm') {
    const thread = threadOf({ appId, teamId, conversation: e.user!, threadTs: e.thread_ts ?? null });
    return { thread, messageRef: messageRefOf(thread, e.ts, e.channel), conversationKey: e.channel };
  }
  const thread = threadOf({ appId, teamId, conversation: e.user!, threadTs: null });
  return { thread, messageRef: messageRefOf(thread, e.ts, e.channel), conversationKey: `${e.channel}:${e.thread_ts ?? e.ts}` };
}

/**
 * Where a pressed card is: a card in a DM (D…) is in the presser's own 1:1 thread (only the DM's
 * member can press there), any other in its channel's.
 */
export function pressedAt(appId: string, teamId: string, presser: string, channel: string, ts: string) {
  const dm = channel.startsWith('D');
  const thread = threadOf({ appId, teamId, conversation: dm ? presser : channel, threadTs: null });
  return { thread, messageRef: messageRefOf(thread, ts, dm ? channel : null) };
}

/**
 * A Slack member writing in a workspace the app is installed in: the event is signed with the app's
 * secret, the app has a bot there, and the writer's own team is that workspace (a Slack Connect
 * guest from another organization is not vouched for).
 */
export function workspaceMember(e: SlackMessageEvent, teamId: string, installed: boolean): boolean {
  const userTeam = (e as { user_team?: unknown }).user_team ?? e.team;
  return Boolean(installed && e.user && (userTeam === undefined || userTeam === teamId));
}

const CHUNK = 2_900;
const MAX_TEXT_BLOCKS = 45;

/** Words as plain-text sections of Slack's size (a decided card keeps its words this way, without buttons). */
export function textBlocks(text: string): Block[] {
  const sections: Block[] = [];
  for (let i = 0; i < Math.max(text.length, 1) && sections.length < MAX_TEXT_BLOCKS; i += CHUNK) {
    sections.push({ type: 'section', text: { type: 'plain_text', text: text.slice(i, i + CHUNK) || ' ', emoji: false } });
  }
  return sections;
}

/**
 * A message with buttons as Block Kit: the words as plain text (Slack shows plain_text literally;
 * mrkdwn would reinterpret an approval's body), cut into sections of Slack's size, then the
 * buttons, each carrying only the core's binding token.
 */
export function blocksOf(text: string, buttons: OutboundButton[]): Block[] {
  const sections = textBlocks(text);
  if (!buttons.length) return sections;
  const elements = buttons.map((b) => ({
    type: 'button',
    action_id: b.decision === 'approve' ? APPROVE_ACTION : REJECT_ACTION,
    ...(b.decision === 'approve' ? { style: 'primary' } : { style: 'danger' }),
    text: { type: 'plain_text', text: b.text },
    value: b.binding,
  }));
  return [...sections, { type: 'actions', block_id: `steward:${buttons[0]!.binding}`, elements }];
}

/** The button's binding: the port's token, or, on a card posted before Slack moved behind the port, the cart and hash it carried. */
export function bindingOf(value: string | undefined): { binding: string } | { cartId: string; contentHash: string } | null {
  if (!value) return null;
  if (/^[A-Za-z0-9_-]{1,100}$/.test(value)) return { binding: value };
  try {
    const v = JSON.parse(value) as { cartId?: unknown; contentHash?: unknown };
    return typeof v.cartId === 'string' && typeof v.contentHash === 'string' ? { cartId: v.cartId, contentHash: v.contentHash } : null;
  } catch {
    return null;
  }
}
