import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, inboundTexts, textChannels, type TextChannel } from '@/db/schema';
import { verifiedPhones } from '@/server/identifiers/verified-phones';
import type { Connection, SendingAdapter, SendRequest } from '../adapter';
import { imessageFilesProblem } from '../imessage/media';
import { failedDelivery as failed, type Delivery } from '../message';
import { activeLine } from '../phone-lines';
import { twilioConfig } from '../twilio/config';
import { E164 } from '../twilio/payloads';
import { MAX_TEXT, sendText, textProviderConfigured } from './send-text';

/*
 * The texts' sending half of the channel port (adapter.ts): SMS and WhatsApp through Twilio,
 * iMessage through Sendblue, one adapter per channel. The core sends through it as through any
 * adapter (server/channels/port-send.ts), saying what the send is:
 * - `reply`: a chat turn's answer to the text `replyTo` names, from the number that text reached,
 *   into the same conversation (the person, or the group);
 * - `notice`: Steward's word to the owner in their thread, which is one of their verified numbers
 *   (`ownerThreads`), from the assistant's line on the channel (SMS: Steward's own sender,
 *   STEWARD_TWILIO_SMS_FROM, when the assistant has none); outside WhatsApp's 24-hour window it
 *   goes as the notice template, when one is configured;
 * - `dispatch`: an approved send_message, from the assistant's own line, to the one number it
 *   names exactly as approved, or (`group:<id>`) into a group conversation that line is a member
 *   of (an answer in a group, staged by the audience rule: messaging/outward-reply.ts).
 * Each send is sendText's (send-text.ts): its intent first, keyed by the kind and the core's `ref`,
 * so a retry never sends again. The inbound half is the providers' webhooks (webhook.ts: one
 * Twilio webhook serving two channels, Sendblue's for iMessage), mapped to texts and status reports
 * by transform.ts; the core (messaging/texts-*.ts) reads keywords, reply codes and statuses.
 */

const GROUP = 'group:';
/** The connection of Steward's own SMS sender, used for notices when the assistant has no line. */
const STEWARD_SENDER = 'steward-sms-sender';
const LABELS: Record<TextChannel, string> = { sms: 'SMS', whatsapp: 'WhatsApp', imessage: 'iMessage' };

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

/**
 * What a text to one number can carry: an MMS up to 10 files, a WhatsApp message one (Twilio's
 * limits); an iMessage one file of at most 5 MB (Sendblue's: one media_url per send). Null when it fits.
 */
function mediaProblem(channel: TextChannel, req: SendRequest): string | null {
  if (channel === 'imessage') return req.files.length ? imessageFilesProblem(req.files) : null;
  const count = req.links?.length ?? 0;
  const most = channel === 'whatsapp' ? 1 : 10;
  return count > most ? `A ${channel} message carries at most ${most} file${most === 1 ? '' : 's'}` : null;
}

/** Files as the provider takes them: links Twilio fetches (the core signs them: fileLinks), or bytes uploaded to Sendblue. */
function filesOf(channel: TextChannel, req: SendRequest): { mediaUrls?: string[]; files?: SendRequest['files'] } | { problem: string } {
  if (channel === 'imessage') return req.links?.length ? { problem: 'An iMessage takes its files as bytes, not links' } : req.files.length ? { files: req.files } : {};
  if (req.files.length) return { problem: `A ${channel} message takes its files as links, not bytes` };
  return req.links?.length ? { mediaUrls: req.links.map((l) => l.url) } : {};
}

async function reply(db: Db, channel: TextChannel, req: SendRequest): Promise<Delivery> {
  if (!req.replyTo || !req.ref) return failed('a text reply must name the text it answers');
  const [question] = await db
    .select()
    .from(inboundTexts)
    .where(and(eq(inboundTexts.providerMessageId, req.replyTo), eq(inboundTexts.channel, channel)))
    .limit(1);
  if (!question) return failed('the text this answers is not known');
  return sendText(db, {
    accountId: question.accountId,
    channel,
    from: question.toNumber,
    to: question.fromNumber,
    groupId: question.groupKey,
    body: cut(req.text),
    purpose: 'reply',
    intentKey: `reply:${req.ref}`,
    callerRef: req.ref,
  });
}

async function notice(db: Db, channel: TextChannel, req: SendRequest): Promise<Delivery> {
  const to = req.thread ?? req.to;
  if (!to || !req.ref) return failed('a notice names the number it goes to and its own id');
  const template = channel === 'whatsapp' ? twilioConfig()?.whatsappNoticeTemplate : null;
  return sendText(db, {
    accountId: req.connection.accountId,
    channel,
    from: req.connection.externalId,
    to,
    body: cut(req.text),
    purpose: 'notice',
    // Per number: a notice refused at one of the owner's numbers may still go to the next (port-send.ts).
    intentKey: `notice:${req.ref}:${to}`,
    callerRef: req.ref,
    windowTemplate: template ? { id: template, variables: { '1': req.subject ?? '' } } : null,
  });
}

/** A dispatch into a group conversation: only one the assistant's line on this channel has received from (it is a member). */
async function intoGroup(db: Db, channel: TextChannel, req: SendRequest, groupId: string, from: string): Promise<Delivery> {
  if (req.files.length || req.links?.length) return failed(`A message into a ${channel} group carries no files: nothing was sent`);
  if (!req.template && req.text.length > MAX_TEXT) return failed(`A ${channel} message holds at most ${MAX_TEXT} characters: nothing was sent`);
  const [member] = await db
    .select({ id: inboundTexts.id })
    .from(inboundTexts)
    .where(and(eq(inboundTexts.accountId, req.connection.accountId), eq(inboundTexts.channel, channel), eq(inboundTexts.groupKey, groupId), eq(inboundTexts.toNumber, from)))
    .limit(1);
  if (!member) return failed(`The assistant's ${channel} number is not in that group: nothing was sent`);
  return sendText(db, { accountId: req.connection.accountId, channel, from, to: groupId, groupId, body: req.text, purpose: 'dispatch', intentKey: `dispatch:${req.ref}`, dispatchId: req.dispatchId ?? null });
}

async function dispatch(db: Db, channel: TextChannel, req: SendRequest): Promise<Delivery> {
  const target = req.to ?? req.thread;
  if (!target || !req.ref) return failed('The message names no number: nothing was sent');
  // Steward's own sender carries notices and codes only: what the assistant sends goes from its own line.
  if (req.connection.id === STEWARD_SENDER) return failed(`The assistant has no ${channel} number (ask for a phone line): nothing was sent`);
  const from = req.connection.externalId;
  if (target.startsWith(GROUP)) return intoGroup(db, channel, req, target.slice(GROUP.length), from);
  const to = target.replace(/[\s().-]/g, '');
  if (!E164.test(to)) return failed(`${target} is not a phone number in E.164 form (+ and the country code): nothing was sent`);
  if (!req.template && req.text.length > MAX_TEXT) return failed(`A ${channel} message holds at most ${MAX_TEXT} characters: nothing was sent`);
  const media = mediaProblem(channel, req);
  if (media) return failed(`${media}: nothing was sent`);
  const files = filesOf(channel, req);
  if ('problem' in files) return failed(`${files.problem}: nothing was sent`);
  return sendText(db, {
    accountId: req.connection.accountId,
    channel,
    from,
    to,
    body: req.text,
    purpose: 'dispatch',
    intentKey: `dispatch:${req.ref}`,
    dispatchId: req.dispatchId ?? null,
    template: req.template ?? null,
    ...files,
  });
}

function textAdapter(channel: TextChannel): SendingAdapter<TextChannel> {
  return {
    channel,
    label: LABELS[channel],
    capabilities: { files: true, ...(channel === 'imessage' ? { groups: true } : { fileLinks: true }) },
    configured: () => textProviderConfigured(channel),

    /** The assistant's line on the channel; for SMS without one, Steward's own sender (notices only: dispatch refuses it). */
    async connectionFor(db, assistantId) {
      const line = await activeLine(db, assistantId, channel);
      if (line) return { id: line.number, channel, accountId: line.accountId, assistantId, externalId: line.number, name: null };
      const smsFrom = channel === 'sms' ? (twilioConfig()?.smsFrom ?? null) : null;
      if (!smsFrom) return null;
      const [assistant] = await db.select({ accountId: assistants.accountId }).from(assistants).where(eq(assistants.id, assistantId));
      return assistant ? ({ id: STEWARD_SENDER, channel, accountId: assistant.accountId, assistantId, externalId: smsFrom, name: null } satisfies Connection) : null;
    },

    send(db, req) {
      if (req.buttons?.length) return Promise.resolve(failed(`${channel} has no buttons: nothing was sent`));
      if (req.kind === 'reply') return reply(db, channel, req);
      if (req.kind === 'notice') return notice(db, channel, req);
      if (req.kind === 'dispatch') return dispatch(db, channel, req);
      // Verification codes go through identifiers/verification.ts's sender (server/compose/channels.ts).
      return Promise.resolve(failed(`codes are not sent through the ${channel} adapter`));
    },

    audienceOf: (thread) => (thread.startsWith(GROUP) ? { kind: 'room', where: `the ${LABELS[channel]} group` } : { kind: 'direct', person: thread }),
    directThread: (person) => person.userId,

    /** The owner's verified numbers, the primary first: a number is proven theirs, nothing else is. */
    ownerThreads: (db, userId) => verifiedPhones(db, userId),
  };
}

/** The text channels' sending halves, one per channel (server/channels/adapters.ts lists them). */
export const textAdapters: readonly SendingAdapter<TextChannel>[] = textChannels.map(textAdapter);
