import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { channelThreads, type ChannelThreadRow } from '@/db/schema';

/*
 * Thread memory (db/schema/messaging.ts): every message the layer sends or receives on a channel
 * is noted by its provider id with the chat, task or notice it belongs to, so a reply naming it
 * (In-Reply-To, References) finds its way back. Only the thread's owner's rows are consulted.
 */

export type ThreadNote = Pick<ChannelThreadRow, 'accountId' | 'userId' | 'assistantId' | 'channel' | 'externalRef' | 'direction'> &
  Partial<Pick<ChannelThreadRow, 'chatId' | 'taskId' | 'noticeId'>>;

export async function noteThread(tx: Tx, note: ThreadNote): Promise<void> {
  await tx.insert(channelThreads).values(note).onConflictDoNothing();
}

/** The nearest message of the thread the layer knows (refs nearest first), or null. */
export async function findThread(tx: Tx, accountId: string, channel: string, refs: readonly string[]): Promise<ChannelThreadRow | null> {
  if (!refs.length) return null;
  const rows = await tx
    .select()
    .from(channelThreads)
    .where(and(eq(channelThreads.accountId, accountId), eq(channelThreads.channel, channel), inArray(channelThreads.externalRef, [...new Set(refs)])));
  for (const ref of refs) {
    const hit = rows.find((r) => r.externalRef === ref);
    if (hit) return hit;
  }
  return null;
}

/** Every provider id noted for a chat, oldest first: the References of a reply in it. */
export async function chatRefs(tx: Tx, chatId: string): Promise<string[]> {
  const rows = await tx.select({ ref: channelThreads.externalRef, at: channelThreads.createdAt }).from(channelThreads).where(eq(channelThreads.chatId, chatId)).orderBy(channelThreads.createdAt);
  return rows.map((r) => r.ref);
}
