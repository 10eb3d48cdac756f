import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, chats, users, type ChatFile, type ChatMessageRow } from '@/db/schema';
import { appendChatMessage } from './messages';
import { chatTier } from './tier';

export type EmailIn = {
  accountId: string;
  assistantId: string;
  inboundMessageId: string;
  messageId: string | null;
  from: { address: string; name: string | null };
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  attachments: { filename?: string | null; contentType?: string | null; size?: number }[];
  /** The attachments stored as files of the chat's owner (messaging/attachments.ts), and those that did not fit. */
  files?: ChatFile[];
  attachmentsNotStored?: string[];
  /** Whether the From address is proven (DMARC, or SPF or DKIM aligned with its domain). */
  senderVerified: boolean;
};

/**
 * Mail to an assistant that answers no task opens or continues that assistant's email chat with
 * the sender (spec 4, Inbound email): one chat per assistant and counterpart address, owned by
 * the assistant's user. Only a user's own assistant has such chats: mail to a shared assistant
 * (account, organization or team) names no one person it is for, so it stays unmatched. The
 * message is the sender's words (`contact`), which the model sees as untrusted data; its
 * metadata says whether the From address is proven, since the thread is keyed by that address
 * and an unproven message may come from anyone.
 */
export async function continueEmailChat(tx: Tx, mail: EmailIn): Promise<{ chatId: string; userId: string; message: ChatMessageRow } | null> {
  const [assistant] = await tx
    .select({ scope: assistants.scope, userId: assistants.userId })
    .from(assistants)
    .where(and(eq(assistants.id, mail.assistantId), eq(assistants.accountId, mail.accountId)));
  if (!assistant || assistant.scope !== 'user' || !assistant.userId) return null;
  const counterpart = mail.from.address.toLowerCase();
  const [owner] = await tx.select({ accountId: users.accountId, organizationId: users.organizationId }).from(users).where(eq(users.id, assistant.userId));
  if (!owner) return null;
  // Concurrent first mails from one sender meet on the thread's unique index: one chat.
  await tx
    .insert(chats)
    .values({
      accountId: mail.accountId,
      userId: assistant.userId,
      assistantId: mail.assistantId,
      title: mail.subject || `Email from ${counterpart}`,
      platform: 'email',
      participants: [{ type: 'email', value: counterpart }],
      threadKey: counterpart,
      modelTier: await chatTier(tx, owner),
    })
    .onConflictDoNothing();
  const [chat] = await tx
    .select()
    .from(chats)
    .where(and(eq(chats.assistantId, mail.assistantId), eq(chats.platform, 'email'), eq(chats.threadKey, counterpart)));
  const message = await appendChatMessage(tx, chat, {
    role: 'contact',
    content: mail.text,
    from: mail.from.name ? `${mail.from.name} <${counterpart}>` : counterpart,
    to: mail.to,
    cc: mail.cc,
    subject: mail.subject,
    platform: 'email',
    referenceId: mail.messageId,
    files: mail.files ?? [],
    deliveryState: 'received',
    metadata: {
      inboundMessageId: mail.inboundMessageId,
      senderVerified: mail.senderVerified,
      attachments: mail.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType ?? null, size: a.size ?? null })),
      ...(mail.attachmentsNotStored?.length ? { attachmentsNotStored: mail.attachmentsNotStored } : {}),
    },
  });
  return { chatId: chat.id, userId: chat.userId, message };
}
