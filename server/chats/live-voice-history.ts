import { desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatMessages, type ChatMessageRow } from '@/db/schema';
import type { HistoryItem } from '@/server/channels/realtime/session';
import { asUntrustedData } from '@/server/models/untrusted';

/*
 * What a live voice conversation on the chat page knows of the chat before it (issue 48): its
 * newest messages, read as a chat turn reads them (chat-conversation.ts), the person's own words
 * verbatim and the assistant's as its own, anyone else's (a contact, a system note) wrapped as
 * untrusted data. Bounded, since it is read again by every response of the conversation and a
 * realtime model's context is small: at most MAX_MESSAGES messages and MAX_CHARS characters in
 * all, the newest kept; a long message is cut at MESSAGE_CHARS. Files are named, not read.
 */

const MAX_MESSAGES = 20;
const MAX_CHARS = 8_000;
const MESSAGE_CHARS = 2_000;

const cut = (s: string) => (s.length > MESSAGE_CHARS ? `${s.slice(0, MESSAGE_CHARS)}…` : s);

function itemOf(m: Pick<ChatMessageRow, 'role' | 'content' | 'files'>): HistoryItem | null {
  const files = (m.files ?? []).map((f) => f.filename?.trim() || f.fileId).filter(Boolean);
  const text = cut(m.content.trim()) + (files.length ? `\n(attached: ${files.join(', ')})` : '');
  if (!text.trim()) return null;
  if (m.role === 'user') return { role: 'user', text };
  if (m.role === 'assistant') return { role: 'assistant', text };
  return { role: 'user', text: asUntrustedData(`chat:${m.role}`, text) };
}

/** The chat's recent messages, oldest first, as the realtime model's history items. */
export async function liveChatHistory(db: Db, chatId: string): Promise<HistoryItem[]> {
  const rows = await db
    .select({ role: chatMessages.role, content: chatMessages.content, files: chatMessages.files })
    .from(chatMessages)
    .where(eq(chatMessages.chatId, chatId))
    .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
    .limit(MAX_MESSAGES);
  const items: HistoryItem[] = [];
  let chars = 0;
  for (const m of rows) {
    const item = itemOf(m);
    if (!item) continue;
    chars += item.text.length;
    if (chars > MAX_CHARS) break;
    items.push(item);
  }
  return items.reverse();
}
