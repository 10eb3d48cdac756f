import { and, desc, eq, inArray, lte, ne, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatMessages, chatTurns, taskActivities, type ChatMessageRow, type TaskActivityRow, type TaskRow } from '@/db/schema';

/*
 * What a run or a turn is about, as recall reads it (spec 6, Recall: "the task's title,
 * description and latest messages; the turn's message"): `about` counts fully, the messages
 * before it less the older they are. The context builders pass the rows they already read
 * (taskRecallInput, chatRecallInput); a tool that must know what the run saw (save_memory,
 * chat taint) reads the same rows again through the loaders below, so both agree.
 */

export type RecallSubject = {
  /** The task's title and description, or the message the turn answers. */
  about: string;
  /** The latest messages before it, newest first. */
  recent: string[];
};

/** How many earlier messages count, and how much of each. */
const RECENT = 6;
const MESSAGE_CHARS = 2_000;

const TASK_MESSAGES = ['user', 'contact', 'assistant', 'peer'] as const;
const CHAT_MESSAGES = ['user', 'contact', 'assistant'] as const;

const cut = (s: string) => s.slice(0, MESSAGE_CHARS);

/** A task's subject: its title and description, and its latest messages (activities in their order, oldest first). */
export function taskRecallInput(task: Pick<TaskRow, 'title' | 'description'>, activities: readonly Pick<TaskActivityRow, 'kind' | 'content'>[]): RecallSubject {
  const messages = activities.filter((a) => (TASK_MESSAGES as readonly string[]).includes(a.kind) && a.content.trim());
  return {
    about: [task.title, task.description ?? ''].filter(Boolean).join('\n'),
    recent: messages.slice(-RECENT).reverse().map((a) => cut(a.content)),
  };
}

/** A turn's subject: the message it answers, and the chat's messages before it (oldest first). */
export function chatRecallInput(answered: Pick<ChatMessageRow, 'id' | 'content'> | null, history: readonly Pick<ChatMessageRow, 'id' | 'role' | 'content'>[]): RecallSubject {
  const before = history.filter((m) => m.id !== answered?.id && (CHAT_MESSAGES as readonly string[]).includes(m.role) && m.content.trim());
  return { about: cut(answered?.content ?? ''), recent: before.slice(-RECENT).reverse().map((m) => cut(m.content)) };
}

/** The task's subject, read as runContext reads it (task-conversation.ts). */
export async function loadTaskSubject(db: Db, task: Pick<TaskRow, 'id' | 'title' | 'description'>): Promise<RecallSubject> {
  const rows = await db
    .select({ kind: taskActivities.kind, content: taskActivities.content })
    .from(taskActivities)
    .where(and(eq(taskActivities.taskId, task.id), inArray(taskActivities.kind, [...TASK_MESSAGES]), ne(taskActivities.content, '')))
    .orderBy(desc(taskActivities.createdAt), desc(taskActivities.id))
    .limit(RECENT);
  return taskRecallInput(task, rows.reverse());
}

/** The subject of a chat's latest turn (the message it answers and those before it), read as chatContext reads it (server/chats/chat-conversation.ts). */
export async function loadChatSubject(db: Db, chatId: string): Promise<RecallSubject> {
  const [turn] = await db.select({ messageId: chatTurns.messageId }).from(chatTurns).where(eq(chatTurns.chatId, chatId)).orderBy(desc(chatTurns.createdAt)).limit(1);
  const [answered] = turn ? await db.select().from(chatMessages).where(and(eq(chatMessages.id, turn.messageId), eq(chatMessages.chatId, chatId))) : [];
  const upTo = answered ? lte(chatMessages.createdAt, sql`(SELECT m.created_at FROM chat_messages m WHERE m.id = ${answered.id})`) : undefined;
  const rows = await db
    .select({ id: chatMessages.id, role: chatMessages.role, content: chatMessages.content })
    .from(chatMessages)
    .where(and(eq(chatMessages.chatId, chatId), upTo, inArray(chatMessages.role, [...CHAT_MESSAGES])))
    .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
    .limit(RECENT + 1);
  return chatRecallInput(answered ?? null, rows.reverse());
}
