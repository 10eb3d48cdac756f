import type { Tx } from '@/db/client';
import type { InboundChannelMessage } from '@/server/channels/message';
import { MAX_MESSAGE_CHARS } from '@/server/tasks/contracts';
import { attachContactReply } from '@/server/tasks/inbound-reply';
import { tasksAwaiting, type ProvenHandles } from '@/server/tasks/waiting-on';
import { storeAttachments } from './attachments';
import type { Writer } from './identify';
import { routed, type Routed } from './routed';

/*
 * A message from someone a task waits on (wait_for_reply), on any chat or text channel (spec 6:
 * Replies on every channel). Every inbound channel reaches this through routeInbound (inbound.ts),
 * so the rule lives once:
 * - only handles the channel proved count: a text's number (a signed Twilio webhook from the
 *   number's provider), a Slack user of a workspace the assistant's app is installed in, a Teams
 *   user of a connected tenant, a Telegram user writing to the assistant's own bot, or the verified
 *   email a linked Slack or Teams identity stands for;
 * - the tasks are those of the assistant the message reached (its own number, app or bot); a
 *   deployment-wide bot that answers for every assistant (Teams) reaches the tasks of its account;
 *   the sender's own tasks are never "waiting on" them;
 * - each task waiting on the sender (at most MAX_WOKEN) gets their words as `contact` content on
 *   that platform (untrusted: the run that reads it is tainted) and wakes; the message then opens
 *   no chat of its own, as an email reply does not.
 * Email keeps its thread rule (a reply names mail the task sent: tasks/inbound-reply.ts); a text
 * in a group is another member's word in the owner's group chat (strangers.ts), not a reply.
 */

const LABELS: Partial<Record<InboundChannelMessage['channel'], string>> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  imessage: 'iMessage',
  slack: 'Slack',
  teams: 'Teams',
  telegram: 'Telegram',
};

/** Channels with one bot for the whole deployment: a reply there may answer any assistant of the account. */
const DEPLOYMENT_BOTS: ReadonlySet<InboundChannelMessage['channel']> = new Set(['teams']);

/** The sender's handles that the channel proved. */
export function provenHandles(msg: Pick<InboundChannelMessage, 'sender' | 'person'>): ProvenHandles {
  const h: ProvenHandles = {};
  if (msg.sender.proven && msg.sender.kind === 'email') h.email = msg.sender.value.toLowerCase();
  if (msg.sender.proven && msg.sender.kind === 'phone') h.phone = msg.sender.value;
  if (msg.person?.provider === 'slack') h.slackUserId = msg.person.userId;
  if (msg.person?.provider === 'teams') h.teamsUserId = msg.person.userId.toLowerCase();
  if (msg.person?.provider === 'telegram') h.telegramUserId = msg.person.userId;
  return h;
}

/** The activity's text: the channel and who wrote on its first line (as the taint record reads it), then their words. */
export function replyContent(msg: Pick<InboundChannelMessage, 'channel' | 'sender' | 'person' | 'text'>, notStored: string[] = []): string {
  const label = LABELS[msg.channel] ?? msg.channel;
  const handle = msg.sender.kind === 'phone' || msg.sender.kind === 'email' ? msg.sender.value : (msg.person?.userId ?? msg.sender.value);
  const who = msg.sender.name ? `${msg.sender.name} <${handle}>` : handle;
  const note = notStored.length ? `\n[attachments not stored: ${notStored.join('; ')}]` : '';
  const head = `${label} from ${who}\n\n`;
  const room = MAX_MESSAGE_CHARS - head.length - note.length;
  const body = msg.text.trim();
  return head + (body.length <= room ? body : `${body.slice(0, room - 20)}\n[message truncated]`) + note;
}

/** The reply attached to the tasks waiting on its sender, or null when none waits (the message goes on as before). */
export async function answerAwaited(tx: Tx, msg: InboundChannelMessage, writer: Writer): Promise<Routed | null> {
  if (!LABELS[msg.channel] || msg.automated) return null;
  if (msg.threadKey?.startsWith('group:')) return null;
  const handles = provenHandles(msg);
  const sender = writer.kind === 'owner' ? writer.user.id : null;
  const waiting = await tasksAwaiting(tx, { accountId: msg.accountId, assistantId: DEPLOYMENT_BOTS.has(msg.channel) ? null : msg.assistantId, exceptUserId: sender }, handles);
  if (!waiting.length) return null;
  let first: { taskId: string; activityId: string; reason: string | null } | null = null;
  for (const task of waiting) {
    // The files are the task owner's, stored under the rules of any inbound file (quota, quarantine).
    const { files, refused } = await storeAttachments(tx, { id: task.userId, accountId: task.accountId }, msg);
    const done = await attachContactReply(tx, task, { platform: msg.platform, content: replyContent(msg, refused), fileIds: files.map((f) => f.fileId) });
    first ??= { taskId: task.id, activityId: done.activityId, reason: done.reason };
  }
  return routed({ status: 'attached', taskId: first!.taskId, activityId: first!.activityId, reason: waiting.length > 1 ? `replied_to_${waiting.length}_tasks` : first!.reason });
}
