import { storableText } from '@/db/storable';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { identifiers, inboundTexts, textOptOuts, type InboundTextRow, type TextChannel, type TextProvider } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import type { ChannelAttachment, InboundChannelMessage } from '@/server/channels/message';
import { lineForNumber } from '@/server/channels/phone-lines';
import type { InboundText } from '@/server/channels/adapter';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import { provenByInbound } from '@/server/identifiers/capabilities';
import { logger } from '@/server/logger';
import { userOfIdentifier } from './identify';
import { routeInbound } from './inbound';
import { decideByText, parseApprovalReply } from './text-approvals';
import { sendText } from '@/server/channels/texts/send-text';

/*
 * A text that reached an assistant's number (SMS, MMS, WhatsApp, iMessage), once its provider's
 * webhook was verified and parsed (channels/texts/webhook.ts, served by texts-webhooks.ts): kept in inbound_texts, then handed to the channel
 * layer in the same transaction, as the hosted inbox does with mail (server/messaging/inbound-mail.ts):
 * - a webhook delivered again (same provider id) is recognised and changes nothing;
 * - the person's last message time is noted on their phone identifier (`messagingWindow`, per
 *   channel; WhatsApp's 24-hour window is judged from the stored texts themselves), and the
 *   platform it came by (`whatsAppCapable`, `iMessageCapable`);
 * - STOP, START and HELP are the provider's keywords: the opt-out list changes, nothing is routed;
 * - the owner's "YES 4821" / "NO 4821" decides the cart that code was sent for (text-approvals.ts);
 * - everything else is an InboundChannelMessage for routeInbound: the number is proven (a validly
 *   signed webhook from the provider that owns the number), the thread is the counterpart's
 *   number (or the group's id), the media are its attachments.
 * Chat turns start once the transaction has committed.
 */

/** A text as the texts' webhook parsed it (channels/texts/webhook.ts), its files fetched: what could not be is named in `mediaProblems`. */
export type ReceivedText = Omit<InboundText, 'files'> & { attachments: ChannelAttachment[]; mediaProblems: string[] };

export type ReceiveOutcome = { status: 'duplicate' | 'no_line' | InboundTextRow['status']; inboundTextId: string | null; reason: string | null };

const KEYWORD_STATUS = { stop: 'opted_out', start: 'opted_in', help: 'help' } as const;

/** The message as the channel layer reads it (server/channels/message.ts). */
function channelMessage(t: ReceivedText, line: { accountId: string; assistantId: string }, storedId: string): InboundChannelMessage {
  const others = t.participants.filter((p) => p !== t.from && p !== t.to);
  return {
    channel: t.channel,
    platform: t.channel,
    accountId: line.accountId,
    assistantId: line.assistantId,
    sender: { kind: 'phone', value: t.from, name: t.name, proven: true },
    to: [t.to],
    cc: t.groupId ? others : [],
    providerMessageId: t.providerMessageId,
    threadRefs: [],
    threadKey: t.groupId ? `group:${t.groupId}` : t.from,
    subject: null,
    text: [t.body, ...(t.mediaProblems.length ? [`(media not received: ${t.mediaProblems.join('; ')})`] : [])].filter(Boolean).join('\n'),
    attachments: t.attachments,
    automated: false,
    storedId,
  };
}

/** The unique index on (provider, provider message id) refused the row: the same text came before. */
function isReplay(e: unknown): boolean {
  for (let cur = e, i = 0; cur && typeof cur === 'object' && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; constraint?: unknown };
    if (c.code === '23505' && c.constraint === 'inbound_texts_provider_id') return true;
  }
  return false;
}

type Line = { accountId: string; assistantId: string; number: string };

function noLine(t: ReceivedText): ReceiveOutcome {
  logger.info({ to: t.to, channel: t.channel }, 'texts: a text reached a number no assistant has; not kept');
  return { status: 'no_line', inboundTextId: null, reason: 'no_line' };
}

type Decided = Pick<InboundTextRow, 'status' | 'reason'> & Partial<Pick<InboundTextRow, 'chatId' | 'taskId' | 'activityId'>>;

/**
 * Stores and routes one text in one transaction. The row is written last, with where the text
 * went: should the provider deliver the text again (its answer lost), the second transaction meets
 * the first's row on the unique index and rolls back whole, so it is acted on once, and the
 * common case pays no separate look-up or update.
 */
export async function receiveText(db: Db, t: ReceivedText, now = new Date()): Promise<ReceiveOutcome> {
  // The line is read in the text's own transaction: a request waits once for a connection, not
  // twice, which under load put it back behind every request that came meanwhile (issue 40).
  // Media are written to storage before the commit: with media the line is known, and a replay
  // recognised, before anything is stored, so none is stored twice.
  let line: Line | null = null;
  if (t.attachments.length) {
    line = await lineForNumber(db, t.to, t.channel);
    if (!line) return noLine(t);
    const [seen] = await db.select({ id: inboundTexts.id }).from(inboundTexts).where(and(eq(inboundTexts.provider, t.provider), eq(inboundTexts.providerMessageId, t.providerMessageId)));
    if (seen) return { status: 'duplicate', inboundTextId: null, reason: 'duplicate' };
  }
  const id = newId();
  const turns: QueuedChatTurn[] = [];
  let answer: { text: string; key: string } | null = null;
  let decided: Decided | null;
  try {
    decided = await db.transaction(async (tx): Promise<Decided | null> => {
      turns.length = 0;
      answer = null;
      line ??= await lineForNumber(tx, t.to, t.channel);
      if (!line) return null;
      await tx
        .update(identifiers)
        .set({
          messagingWindow: sql`coalesce(${identifiers.messagingWindow}, '{}'::jsonb) || jsonb_build_object(${t.channel}::text, ${now.toISOString()}::text)`,
          // A WhatsApp message or an iMessage from the number proves it uses that platform (identifiers/capabilities.ts).
          ...provenByInbound(t.channel),
        })
        .where(and(eq(identifiers.accountId, line.accountId), eq(identifiers.type, 'phone'), eq(identifiers.value, t.from)));
      let out: Decided;
      if (t.keyword && !t.groupId) {
        if (t.keyword === 'stop') await tx.insert(textOptOuts).values({ senderNumber: t.to, counterpart: t.from, accountId: line.accountId, channel: t.channel }).onConflictDoNothing();
        if (t.keyword === 'start') await tx.delete(textOptOuts).where(and(eq(textOptOuts.senderNumber, t.to), eq(textOptOuts.counterpart, t.from)));
        out = { status: KEYWORD_STATUS[t.keyword], reason: `keyword_${t.keyword}` };
      } else {
        const decision = !t.groupId && parseApprovalReply(t.body) ? await approvalFromOwner(db, tx, line, t, now) : null;
        if (decision?.handled) {
          answer = { text: decision.reply, key: `decision:${id}` };
          out = { status: 'approval', reason: `approval_${decision.outcome}` };
        } else {
          const routed = await routeInbound(tx, channelMessage(t, line, id));
          turns.push(...routed.turns);
          // An inactive assistant's sender is told so on the same line (inbound.ts decides whether).
          if (routed.refusal && !t.groupId) answer = { text: routed.refusal, key: `inactive:${id}` };
          out = { status: routed.status, reason: routed.reason, chatId: routed.chatId, taskId: routed.taskId, activityId: routed.activityId };
        }
      }
      await tx.insert(inboundTexts).values({
        id,
        accountId: line.accountId,
        assistantId: line.assistantId,
        provider: t.provider,
        channel: t.channel,
        providerMessageId: t.providerMessageId,
        fromNumber: t.from,
        toNumber: t.to,
        groupKey: t.groupId,
        participants: t.participants,
        body: storableText(t.body),
        media: [
          ...t.attachments.map((a) => ({ contentType: a.contentType, fileId: null, refused: null })),
          ...t.mediaProblems.map((p) => ({ contentType: 'unknown', fileId: null, refused: p })),
        ],
        keyword: t.keyword,
        ...out,
      });
      return out;
    });
  } catch (e) {
    // The provider delivered it again (our answer was lost): kept and acted on once already.
    if (isReplay(e)) return { status: 'duplicate', inboundTextId: null, reason: 'duplicate' };
    throw e;
  }
  if (!decided || !line) return noLine(t);
  // The owner's message is answered once it is stored for good.
  if (turns.length) await startQueuedTurns(db, turns);
  const confirmation = answer as { text: string; key: string } | null;
  if (confirmation) {
    void sendText(db, { accountId: line.accountId, channel: t.channel, from: t.to, to: t.from, body: confirmation.text, purpose: confirmation.key.startsWith('inactive:') ? 'reply' : 'approval', intentKey: confirmation.key }).catch((err: unknown) =>
      logger.warn({ err }, 'texts: the decision could not be confirmed by text'),
    );
  }
  return { status: decided.status, inboundTextId: id, reason: decided.reason };
}

/**
 * "YES 4821" from a user's verified number (proven: the provider signed the webhook), to the line
 * that texted them that code: their decision on their own cart. The user is the one the number
 * names, not the line's owner: a team's or the account's assistant has no single owner, and its
 * line texts the codes of each person whose cart it staged (decideByText checks the code is theirs
 * and went from this line to this number).
 */
async function approvalFromOwner(db: Db, tx: Tx, line: { accountId: string; assistantId: string }, t: ReceivedText, now: Date) {
  const user = await userOfIdentifier(tx, line.accountId, { kind: 'phone', value: t.from, proven: true });
  return user?.status === 'active' ? decideByText(db, tx, user, t.body, { from: t.from, to: t.to }, now) : null;
}
