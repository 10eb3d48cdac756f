import { eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { storableJson, storableText, storableTextOrNull } from '@/db/storable';
import { chatMessages, chats, type ChatFile, type ChatMessageRow, type ChatRow } from '@/db/schema';
import { emitWebhookEvent } from '@/server/webhooks/emit';

export type NewChatMessage = {
  role: ChatMessageRow['role'];
  content: string;
  from?: string | null;
  to?: string | string[] | null;
  cc?: string | string[] | null;
  subject?: string | null;
  platform?: ChatMessageRow['platform'] | string | null;
  referenceId?: string | null;
  files?: ChatFile[];
  metadata?: Record<string, unknown>;
  deliveryState?: ChatMessageRow['deliveryState'];
  turnId?: string | null;
};

const list = (v: string | string[] | null | undefined) => (v == null ? [] : Array.isArray(v) ? v : [v]);

/**
 * The one way a message joins a chat (the messages API, a streaming turn's question and reply,
 * inbound email): the row, and the chat's count and last-message time, in the caller's
 * transaction. The platform defaults to the chat's own.
 */
export async function appendChatMessage(tx: Tx, chat: Pick<ChatRow, 'id' | 'accountId'> & Partial<Pick<ChatRow, 'platform'>>, input: NewChatMessage): Promise<ChatMessageRow> {
  const [row] = await tx
    .insert(chatMessages)
    .values({
      chatId: chat.id,
      accountId: chat.accountId,
      role: input.role,
      // Messages come from outside (a text, a mail, a model's answer): stored as Postgres can hold them (db/storable.ts).
      content: storableText(input.content),
      from: storableTextOrNull(input.from),
      to: storableJson(list(input.to)),
      cc: storableJson(list(input.cc)),
      subject: storableTextOrNull(input.subject),
      platform: (input.platform ?? chat.platform ?? sql`(SELECT platform FROM chats WHERE id = ${chat.id})`) as ChatMessageRow['platform'],
      referenceId: input.referenceId ?? null,
      files: input.files ?? [],
      metadata: storableJson(input.metadata ?? {}),
      deliveryState: input.deliveryState ?? 'internal',
      turnId: input.turnId ?? null,
    })
    .returning();
  await tx
    .update(chats)
    .set({ messageCount: sql`${chats.messageCount} + 1`, lastMessageAt: row.createdAt, activityAt: row.createdAt })
    .where(eq(chats.id, chat.id));
  // Chats live under users of the account: its endpoints hear of every message, in this transaction.
  await emitWebhookEvent(tx, row.accountId, 'chat.message', { chatId: chat.id, messageId: row.id, role: row.role, platform: row.platform, from: row.from, subject: row.subject, content: row.content, timestamp: row.createdAt.toISOString() });
  return row;
}
