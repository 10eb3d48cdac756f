import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { cartDispatches, chatMessages, notices, outboundTexts, textOptOuts, type OutboundTextRow } from '@/db/schema';
import type { TextStatusReport } from '@/server/channels/adapter';
import { logger } from '@/server/logger';
import { optedOutReason } from '@/server/channels/texts/send-text';

/*
 * A provider's status callback for a text Steward sent (Twilio's MessageStatus, Sendblue's
 * status, as the texts' webhook maps it: channels/texts/transform.ts): the text's row moves on,
 * and so does what it carried: a dispatch (undelivered or failed → `failed` with the provider's
 * reason; an `unknown` dispatch whose answer was lost becomes `provider_accepted` once the provider
 * names it), a chat reply, a notice. The callback's
 * URL names the intent (`ref`), so even a send whose answer never came back is settled. States
 * only move forward: a late `sent` never undoes `delivered`, nothing undoes a failure.
 */

export type TextStatus = OutboundTextRow['status'];

const RANK: Record<TextStatus, number> = { sending: 0, unknown: 0, accepted: 1, queued: 2, sent: 3, delivered: 4, read: 5, undelivered: 6, failed: 6 };
const FAILED = new Set<TextStatus>(['undelivered', 'failed']);

export async function applyTextStatus(db: Db, report: TextStatusReport): Promise<{ applied: boolean }> {
  return db.transaction(async (tx) => {
    const by = report.ref ? eq(outboundTexts.id, report.ref) : eq(outboundTexts.providerMessageId, report.providerMessageId);
    const [row] = await tx
      .select()
      .from(outboundTexts)
      .where(and(by, eq(outboundTexts.provider, report.provider)))
      .limit(1)
      .for('update');
    // A ref names the intent; its provider id must agree once known (a callback for another message changes nothing).
    if (!row || (row.providerMessageId && row.providerMessageId !== report.providerMessageId)) return { applied: false };
    if (FAILED.has(row.status) || RANK[report.status] <= RANK[row.status]) {
      if (!row.providerMessageId) await tx.update(outboundTexts).set({ providerMessageId: report.providerMessageId }).where(eq(outboundTexts.id, row.id));
      return { applied: false };
    }
    const failed = FAILED.has(report.status);
    const optedOut = report.errorCode === '21610';
    const reason = failed
      ? optedOut
        ? optedOutReason(row.toNumber, row.fromNumber)
        : `The ${row.channel} provider reported the text ${report.status}${report.errorCode ? ` (error ${report.errorCode})` : ''}${report.detail ? `: ${report.detail.slice(0, 200)}` : ''}`
      : null;
    await tx
      .update(outboundTexts)
      .set({ status: report.status, providerMessageId: report.providerMessageId, ...(failed ? { errorCode: report.errorCode, reason } : {}) })
      .where(eq(outboundTexts.id, row.id));
    if (optedOut && row.accountId) {
      await tx.insert(textOptOuts).values({ senderNumber: row.fromNumber, counterpart: row.toNumber, accountId: row.accountId, channel: row.channel }).onConflictDoNothing();
    }

    if (row.dispatchId) {
      if (failed) {
        await tx
          .update(cartDispatches)
          .set({ deliveryState: 'failed', failureReason: reason })
          .where(and(eq(cartDispatches.id, row.dispatchId), inArray(cartDispatches.deliveryState, ['provider_accepted', 'unknown'])));
      } else {
        await tx
          .update(cartDispatches)
          .set({ deliveryState: 'provider_accepted', providerMessageId: report.providerMessageId, failureReason: null })
          .where(and(eq(cartDispatches.id, row.dispatchId), eq(cartDispatches.deliveryState, 'unknown')));
      }
    }
    if (row.callerRef && row.accountId && row.purpose === 'reply') {
      const delivery = sql`jsonb_set(coalesce(${chatMessages.metadata}, '{}'::jsonb), '{delivery,state}', to_jsonb(${report.status}::text), true)`;
      await tx
        .update(chatMessages)
        .set({ metadata: delivery, ...(failed ? { deliveryState: 'failed' as const } : {}) })
        .where(and(eq(chatMessages.referenceId, row.callerRef), eq(chatMessages.accountId, row.accountId), eq(chatMessages.role, 'assistant')));
      if (!failed) {
        await tx
          .update(chatMessages)
          .set({ deliveryState: 'provider_accepted' })
          .where(and(eq(chatMessages.referenceId, row.callerRef), eq(chatMessages.accountId, row.accountId), eq(chatMessages.deliveryState, 'unknown')));
      }
    }
    if (failed && row.callerRef && row.purpose === 'notice') {
      await tx.update(notices).set({ status: 'failed', error: reason }).where(and(eq(notices.providerMessageId, row.callerRef), eq(notices.status, 'sent')));
    }
    if (failed) logger.warn({ outboundTextId: row.id, status: report.status, errorCode: report.errorCode }, 'texts: the provider reported a text not delivered');
    return { applied: true };
  });
}
