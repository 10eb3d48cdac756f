import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { inboundTexts, outboundTexts, textOptOuts, type OutboundTextRow, type TextChannel } from '@/db/schema';
import { failedDelivery as failed, type Delivery } from '@/server/channels/message';
import { imessageFilesProblem, sendblueUploadFile, type SendblueFile } from '@/server/channels/imessage/media';
import { sendblueConfig, sendblueSend } from '@/server/channels/imessage/sendblue';
import { createMessage, TWILIO_OPTED_OUT, TWILIO_OUTSIDE_WINDOW, type TwilioSend } from '@/server/channels/twilio/api';
import { twilioConfig } from '@/server/channels/twilio/config';
import { publicOrigin } from '@/server/http/public-origin';
import { logger } from '@/server/logger';

/*
 * Sending one text (SMS, WhatsApp, iMessage), exactly once, whoever asks (a dispatch, a chat
 * reply, a notice, a verification code, an approval request):
 * - a provider must be configured (else `no provider configured for <channel>`);
 * - a person who texted STOP to this number is never texted from it (`opted_out`);
 * - WhatsApp outside the 24-hour window since the person's last message takes only an approved
 *   template (`outside_whatsapp_window` otherwise), as WhatsApp's rules say;
 * - the intent is recorded under a key of what is sent before the provider is called; a second
 *   attempt finds it and never calls again (a lost answer stays `unknown`, which the provider's
 *   status callback can still settle: its URL names the intent);
 * - the provider's id is recorded after. Nothing reports a delivery that did not happen;
 * - files: Twilio fetches them by signed links (MMS, WhatsApp); an iMessage's one file is uploaded
 *   to Sendblue after the intent and goes as the send's media_url (channels/imessage/media.ts).
 */

export const WHATSAPP_WINDOW_MS = 24 * 3_600_000;
/** Twilio's longest message body; longer conversation text is cut (a dispatch is refused instead). */
export const MAX_TEXT = 1_600;

export type TextSend = {
  accountId: string | null;
  channel: TextChannel;
  /** The sending number (E.164), or a Twilio Messaging Service sid. */
  from: string;
  to: string;
  /** A group conversation (iMessage), instead of `to`. */
  groupId?: string | null;
  body: string;
  purpose: OutboundTextRow['purpose'];
  intentKey: string;
  dispatchId?: string | null;
  callerRef?: string | null;
  /** Send this approved template instead of the body (a template dispatch). */
  template?: { id: string; variables: Record<string, string> } | null;
  /** Files as links the provider fetches (MMS, WhatsApp media): Twilio only. */
  mediaUrls?: string[];
  /** A file as bytes, uploaded to Sendblue and sent as the message's media_url: iMessage to one person only (at most one). */
  files?: SendblueFile[];
  /** Outside the WhatsApp window, this template carries the message instead of failing (notices). */
  windowTemplate?: { id: string; variables: Record<string, string> } | null;
};

export const optedOutReason = (to: string, from: string) => `opted_out: ${to} replied STOP to ${from}; nothing is sent to them from this number until they text START`;
export const OUTSIDE_WINDOW = 'outside_whatsapp_window: the person has not written to this number in the last 24 hours, and WhatsApp only takes an approved template then';

export async function isOptedOut(tx: Tx, from: string, to: string): Promise<boolean> {
  const [row] = await tx.select({ c: textOptOuts.counterpart }).from(textOptOuts).where(and(eq(textOptOuts.senderNumber, from), eq(textOptOuts.counterpart, to))).limit(1);
  return Boolean(row);
}

/** Whether the person wrote to this WhatsApp number in the last 24 hours. */
export async function whatsappWindowOpen(tx: Tx, business: string, person: string, now = new Date()): Promise<boolean> {
  const [row] = await tx
    .select({ id: inboundTexts.id })
    .from(inboundTexts)
    .where(and(eq(inboundTexts.toNumber, business), eq(inboundTexts.fromNumber, person), eq(inboundTexts.channel, 'whatsapp'), gt(inboundTexts.createdAt, new Date(now.getTime() - WHATSAPP_WINDOW_MS))))
    .limit(1);
  return Boolean(row);
}

const SETTLED_OK = new Set(['accepted', 'queued', 'sent', 'delivered', 'read']);

/** What an earlier attempt of the same send left: its answer, or `unknown` (it began and was never recorded). */
function earlier(row: OutboundTextRow): Delivery {
  if (row.providerMessageId && SETTLED_OK.has(row.status)) return { state: row.status === 'delivered' || row.status === 'read' ? 'delivered' : 'accepted', providerMessageId: row.providerMessageId };
  if (row.status === 'failed' || row.status === 'undelivered') return { state: 'failed', providerMessageId: row.providerMessageId, reason: row.reason ?? 'the provider refused it' };
  return {
    state: 'unknown',
    providerMessageId: row.providerMessageId,
    reason: 'A send of it had begun and its result was never recorded: it may or may not have been delivered, so it was not sent again',
  };
}

const statusUrl = (provider: 'twilio' | 'sendblue', ref: string) => `${publicOrigin().origin}/api/channels/${provider}/status?ref=${ref}`;

type ProviderOutcome = { ok: true; id: string; status: string } | { ok: false; definite: boolean; code: number | null; reason: string };

async function callProvider(t: TextSend, ref: string, template: TextSend['template']): Promise<ProviderOutcome | null> {
  if (t.channel === 'imessage') {
    const config = sendblueConfig();
    if (!config) return null;
    // The file first (an upload shows nobody anything), then the words and its media_url in one send.
    let mediaUrl: string | null = null;
    const [file] = t.files ?? [];
    if (file) {
      const up = await sendblueUploadFile(config, file);
      if (!up.ok) return { ok: false, definite: true, code: null, reason: `${up.reason}: nothing was sent` };
      mediaUrl = up.mediaUrl;
    }
    const sent = await sendblueSend(config, { from: t.from, to: t.groupId ? null : t.to, groupId: t.groupId ?? null, content: t.body, statusCallback: statusUrl('sendblue', ref), mediaUrl });
    return sent.ok ? { ok: true, id: sent.handle, status: sent.status } : { ok: false, definite: sent.definite, code: null, reason: sent.reason };
  }
  const config = twilioConfig();
  if (!config) return null;
  const sent: TwilioSend = await createMessage(config, {
    from: t.from,
    to: t.to,
    channel: t.channel,
    ...(template ? { contentSid: template.id, contentVariables: template.variables } : { body: t.body }),
    ...(t.mediaUrls?.length ? { mediaUrls: t.mediaUrls } : {}),
    statusCallback: statusUrl('twilio', ref),
  });
  if (sent.ok) return { ok: true, id: sent.sid, status: sent.status };
  return sent.definite ? { ok: false, definite: true, code: sent.code, reason: sent.reason } : { ok: false, definite: false, code: null, reason: sent.reason };
}

export const textProviderConfigured = (channel: TextChannel) => (channel === 'imessage' ? sendblueConfig() !== null : twilioConfig() !== null);

/** Files in the form the channel's provider takes them (links for Twilio, bytes for Sendblue), within its limits; null when they fit. */
function filesProblem(t: TextSend): string | null {
  if (t.channel !== 'imessage') return t.files?.length ? `A ${t.channel} message takes its files as links, not bytes` : null;
  if (t.mediaUrls?.length) return 'An iMessage takes its file as bytes (Sendblue fetches no signed links)';
  if (t.files?.length && t.groupId) return 'A message into an imessage group carries no files';
  return imessageFilesProblem(t.files ?? []);
}

export async function sendText(db: Db, t: TextSend, now = new Date()): Promise<Delivery> {
  if (!textProviderConfigured(t.channel)) return failed(`no provider configured for ${t.channel}`);
  const files = filesProblem(t);
  if (files) return failed(`${files}: nothing was sent`);
  if (!t.groupId && (await isOptedOut(db, t.from, t.to))) return failed(optedOutReason(t.to, t.from));
  let template = t.template ?? null;
  if (t.channel === 'whatsapp' && !template && !(await whatsappWindowOpen(db, t.from, t.to, now))) {
    if (!t.windowTemplate) return failed(OUTSIDE_WINDOW);
    template = t.windowTemplate;
  }
  const [intent] = await db
    .insert(outboundTexts)
    .values({
      accountId: t.accountId,
      provider: t.channel === 'imessage' ? 'sendblue' : 'twilio',
      channel: t.channel,
      purpose: t.purpose,
      intentKey: t.intentKey,
      fromNumber: t.from,
      toNumber: t.groupId ?? t.to,
      dispatchId: t.dispatchId ?? null,
      callerRef: t.callerRef ?? null,
    })
    .onConflictDoNothing()
    .returning();
  if (!intent) {
    const [row] = await db.select().from(outboundTexts).where(eq(outboundTexts.intentKey, t.intentKey));
    return row ? earlier(row) : failed('the send could not be recorded');
  }
  const outcome = await callProvider(t, intent.id, template);
  if (!outcome) return failed(`no provider configured for ${t.channel}`);
  if (outcome.ok) {
    const status = SETTLED_OK.has(outcome.status) ? (outcome.status as OutboundTextRow['status']) : 'accepted';
    // A status callback that came first may already have moved it further: only a row still `sending` takes the answer's status.
    await db
      .update(outboundTexts)
      .set({ providerMessageId: outcome.id, status: sql`CASE WHEN ${outboundTexts.status} IN ('sending', 'unknown') THEN ${status} ELSE ${outboundTexts.status} END` })
      .where(eq(outboundTexts.id, intent.id));
    return { state: 'accepted', providerMessageId: outcome.id };
  }
  if (!outcome.definite) {
    await db.update(outboundTexts).set({ status: 'unknown', reason: outcome.reason }).where(and(eq(outboundTexts.id, intent.id), eq(outboundTexts.status, 'sending')));
    logger.warn({ intentKey: t.intentKey, reason: outcome.reason }, 'texts: the provider’s answer was lost; the text stays unknown');
    return { state: 'unknown', providerMessageId: null, reason: outcome.reason };
  }
  const reason =
    outcome.code === TWILIO_OPTED_OUT ? optedOutReason(t.to, t.from) : outcome.code === TWILIO_OUTSIDE_WINDOW ? OUTSIDE_WINDOW : outcome.reason;
  // Twilio knows of a STOP Steward missed (a number used elsewhere before): kept, so nothing is attempted again.
  if (outcome.code === TWILIO_OPTED_OUT && t.accountId) {
    await db.insert(textOptOuts).values({ senderNumber: t.from, counterpart: t.to, accountId: t.accountId, channel: t.channel }).onConflictDoNothing();
  }
  await db.update(outboundTexts).set({ status: 'failed', errorCode: outcome.code ? String(outcome.code) : null, reason }).where(eq(outboundTexts.id, intent.id));
  return failed(reason);
}
