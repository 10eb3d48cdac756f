import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { inboundTexts, notices, tasks, users, type TextChannel } from '@/db/schema';
import { failedDelivery as failed, type Delivery, type OutboundChannelMessage } from '@/server/channels/message';
import type { ChannelOutlet, OutboundMessage } from '@/server/channels/outlets';
import { imessageFilesProblem } from '@/server/channels/imessage/media';
import { activeLineFor } from '@/server/channels/phone-lines';
import { twilioConfig } from '@/server/channels/twilio/config';
import { E164 } from '@/server/channels/twilio/payloads';
import { NOTICE_LIMITED, noticeTextAllowed } from '@/server/notices/budget';
import { verifiedPhones } from './text-approvals';
import { MAX_TEXT, sendText, textProviderConfigured } from './texts-outbound';

/*
 * The sending halves of the text channels, as the layer and the approvals area call them:
 * - a chat reply (replies.ts) answers the text it names (`inReplyTo`: the provider id of the
 *   owner's text), from the number that text reached, into the same conversation (the person, or
 *   the group);
 * - a notice (server/notices/deliver.ts) goes to the user's verified number, from their assistant's line
 *   on that channel (SMS: Steward's own sender when the assistant has none); it is named by the
 *   Message-ID the notice recorded before sending;
 * - a dispatch (approvals/delivery.ts, through channels/outlets.ts) goes from the staging
 *   assistant's line on its platform to the one number it names, exactly as approved; or, named
 *   `group:<id>`, into a group conversation that line is a member of (an answer in a group,
 *   staged by the audience rule: outward-reply.ts).
 * Each send is sendText's (texts-outbound.ts): its intent first, keyed so a retry never sends
 * again.
 */

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

async function sendReply(db: Db, channel: TextChannel, message: OutboundChannelMessage): Promise<Delivery> {
  if (!message.inReplyTo || !message.providerMessageId) return failed('a text reply must name the text it answers');
  const [question] = await db
    .select()
    .from(inboundTexts)
    .where(and(eq(inboundTexts.providerMessageId, message.inReplyTo), eq(inboundTexts.channel, channel)))
    .limit(1);
  if (!question) return failed('the text this answers is not known');
  return sendText(db, {
    accountId: question.accountId,
    channel,
    from: question.toNumber,
    to: question.fromNumber,
    groupId: question.groupKey,
    body: cut(message.text),
    purpose: 'reply',
    intentKey: `reply:${message.providerMessageId}`,
    callerRef: message.providerMessageId,
  });
}

async function sendNotice(db: Db, channel: TextChannel, message: OutboundChannelMessage): Promise<Delivery> {
  const [notice] = await db.select().from(notices).where(eq(notices.providerMessageId, message.providerMessageId!)).limit(1);
  if (!notice) return failed('the notice is not known');
  const [to] = await verifiedPhones(db, notice.userId);
  if (!to) return failed(`the user has no verified phone number to receive ${channel}`);
  const [owner] = notice.taskId
    ? await db.select({ assistantId: tasks.assistantId }).from(tasks).where(eq(tasks.id, notice.taskId))
    : await db.select({ assistantId: users.primaryAssistantId }).from(users).where(eq(users.id, notice.userId));
  const line = owner?.assistantId ? await activeLineFor(db, owner.assistantId, channel) : null;
  const from = line ?? (channel === 'sms' ? (twilioConfig()?.smsFrom ?? null) : null);
  if (!from) return failed(`no ${channel} number to send the notice from`);
  // Past the number's budget the notice is not texted (deliver.ts sends it by email instead).
  if (!(await noticeTextAllowed(db, notice.accountId, to))) return failed(NOTICE_LIMITED);
  const template = channel === 'whatsapp' ? twilioConfig()?.whatsappNoticeTemplate : null;
  return sendText(db, {
    accountId: notice.accountId,
    channel,
    from,
    to,
    body: cut(`${notice.subject}\n${message.text}`),
    purpose: 'notice',
    intentKey: `notice:${message.providerMessageId}`,
    callerRef: message.providerMessageId,
    windowTemplate: template ? { id: template, variables: { '1': notice.subject } } : null,
  });
}


const GROUP = 'group:';

/** The files of a dispatch, however they came (links for Twilio, bytes for Sendblue). */
const fileCount = (m: OutboundMessage) => (m.mediaUrls?.length ?? 0) + (m.files?.length ?? 0);

/**
 * What a text to one number can carry: an MMS up to 10 files, a WhatsApp message one (Twilio's
 * limits); an iMessage one file of at most 5 MB (Sendblue's: one media_url per send). Null when it fits.
 */
function mediaProblem(channel: TextChannel, m: OutboundMessage): string | null {
  const files = fileCount(m);
  if (!files) return null;
  if (channel === 'imessage') return imessageFilesProblem(m.files?.length ? m.files : files);
  const most = channel === 'whatsapp' ? 1 : 10;
  return files > most ? `A ${channel} message carries at most ${most} file${most === 1 ? '' : 's'}` : null;
}

/** A dispatch into a group conversation: only one the assistant's line on this channel has received from (it is a member). */
async function sendToGroup(db: Db, channel: TextChannel, m: OutboundMessage): Promise<Delivery> {
  const groupId = m.to.slice(GROUP.length);
  if (fileCount(m)) return failed(`A message into a ${channel} group carries no files: nothing was sent`);
  if (!m.template && m.body.length > MAX_TEXT) return failed(`A ${channel} message holds at most ${MAX_TEXT} characters: nothing was sent`);
  const from = await activeLineFor(db, m.assistantId!, channel);
  if (!from) return failed(`The assistant has no ${channel} number (ask for a phone line): nothing was sent`);
  const [member] = await db
    .select({ id: inboundTexts.id })
    .from(inboundTexts)
    .where(and(eq(inboundTexts.accountId, m.accountId!), eq(inboundTexts.channel, channel), eq(inboundTexts.groupKey, groupId), eq(inboundTexts.toNumber, from)))
    .limit(1);
  if (!member) return failed(`The assistant's ${channel} number is not in that group: nothing was sent`);
  return sendText(db, { accountId: m.accountId!, channel, from, to: groupId, groupId, body: m.body, purpose: 'dispatch', intentKey: `dispatch:${m.idempotencyKey}`, dispatchId: m.dispatchId ?? null });
}

/** One text channel's outlet (channels/outlets.ts): replies and notices, and approved dispatches. */
export function textOutlet(channel: TextChannel, db: () => Db): ChannelOutlet {
  return {
    channel,
    send: (message) => (message.kind === 'notice' ? sendNotice(db(), channel, message) : sendReply(db(), channel, message)),
    async dispatch(m: OutboundMessage): Promise<Delivery> {
      if (!textProviderConfigured(channel)) return failed(`no provider configured for ${channel}`);
      if (!m.assistantId || !m.accountId) return failed('The message names no assistant to send it from: nothing was sent');
      if (m.to.startsWith(GROUP)) return sendToGroup(db(), channel, m);
      const to = m.to.replace(/[\s().-]/g, '');
      if (!E164.test(to)) return failed(`${m.to} is not a phone number in E.164 form (+ and the country code): nothing was sent`);
      if (!m.template && m.body.length > MAX_TEXT) return failed(`A ${channel} message holds at most ${MAX_TEXT} characters: nothing was sent`);
      const media = mediaProblem(channel, m);
      if (media) return failed(`${media}: nothing was sent`);
      const from = await activeLineFor(db(), m.assistantId, channel);
      if (!from) return failed(`The assistant has no ${channel} number (ask for a phone line): nothing was sent`);
      return sendText(db(), {
        accountId: m.accountId,
        channel,
        from,
        to,
        body: m.body,
        purpose: 'dispatch',
        intentKey: `dispatch:${m.idempotencyKey}`,
        dispatchId: m.dispatchId ?? null,
        template: m.template ?? null,
        ...(m.mediaUrls?.length ? { mediaUrls: m.mediaUrls } : {}),
        ...(m.files?.length ? { files: m.files } : {}),
      });
    },
  };
}
