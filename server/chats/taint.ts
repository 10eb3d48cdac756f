import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chatMessages, chatToolCalls, driveFiles, type TaintSource } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { recallForRun } from '@/server/agent/runtime/memories';
import { loadChatSubject } from '@/server/agent/runtime/recall-subject';
import { toolTaint } from '@/server/agent/runtime/taint';
import { mergeTaint } from '@/server/tasks/taint';
import type { ChatRef } from './tools/registry';

/*
 * A chat's turn reads every message of the chat: when anyone but its owner and the assistant
 * wrote one (a contact's email, a stranger's text), or a memory a tainted run saved is among
 * the owner's, the turn is tainted (tasks/taint.ts). So is a chat whose turns read a document
 * (read_file, like any tool that reads outside content) or were shown an image attached to a
 * message: what a file says is someone's, not the owner's words. The chat keeps no flag of its
 * own: a task the turn opens is where taint matters, and it is asked when one is opened.
 */
export async function chatTaint(db: Tx, actor: UserActor, chat: ChatRef): Promise<TaintSource[]> {
  const others = await db
    .selectDistinct({ from: chatMessages.from, platform: chatMessages.platform, role: chatMessages.role })
    .from(chatMessages)
    .where(and(eq(chatMessages.chatId, chat.id), notInArray(chatMessages.role, ['user', 'assistant'])))
    .limit(20);
  const fromMessages: TaintSource[] = others.map((m) => ({
    kind: m.platform === 'email' ? 'email' : 'message',
    ref: m.from ?? `someone on ${m.platform ?? 'the chat'}`,
  }));
  const calls = await db
    .selectDistinct({ toolName: chatToolCalls.toolName, input: chatToolCalls.input })
    .from(chatToolCalls)
    .where(eq(chatToolCalls.chatId, chat.id))
    .limit(200);
  const fromTools = calls.flatMap((c) => toolTaint(c.toolName, c.input, null) ?? []);
  // Images ride in messages' files; a vision tier is shown them, and which tier a later turn
  // uses is not fixed, so any image in the chat counts.
  const images = await db
    .select({ files: chatMessages.files })
    .from(chatMessages)
    .where(and(eq(chatMessages.chatId, chat.id), sql`jsonb_array_length(${chatMessages.files}) > 0`))
    .limit(50);
  const fileIds = [...new Set(images.flatMap((m) => m.files.map((f) => f.fileId)))];
  // The stored file's type decides, not the one a caller named on the message.
  const stored = fileIds.length
    ? await db.select({ id: driveFiles.id, mimeType: driveFiles.mimeType }).from(driveFiles).where(inArray(driveFiles.id, fileIds))
    : [];
  const fromImages: TaintSource[] = stored.filter((f) => f.mimeType?.startsWith('image/')).map((f) => ({ kind: 'file' as const, ref: f.id }));
  // The memories the chat's latest turn is shown (recall depends on what the turn is about).
  const { taint } = await recallForRun(db as unknown as Db, actor, await loadChatSubject(db as unknown as Db, chat.id), new Date());
  return mergeTaint(mergeTaint(mergeTaint(fromMessages, fromTools), fromImages), taint);
}
