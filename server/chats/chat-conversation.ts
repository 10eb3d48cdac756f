import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { ModelMessage } from 'ai';
import type { Db } from '@/db/client';
import { chatMessages, chats, chatToolCalls, chatTurns, type ChatMessageRow, type ChatToolCallRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { modelContext, type Conversation } from '@/server/agent/runtime/context';
import { userContent, withFiles, type ConversationFiles } from '@/server/agent/runtime/conversation';
import type { ModelContext } from '@/server/agent/runtime/host';
import { chatRecallInput } from '@/server/agent/runtime/recall-subject';
import { asUntrustedData } from '@/server/models/untrusted';
import type { ChatRef } from './tools/registry';

/** The newest messages a turn replays. */
const MAX_MESSAGES = 200;

type Turn = { id: string; messageId: string };

/**
 * A message as the model reads it: the user's own verbatim, anyone else's as untrusted data; the
 * files it carries named (name, type, size, id: read_file reads them), images shown to a tier that
 * sees them (server/agent/runtime/conversation.ts). Only files the chat's owner may read are named.
 */
function messageFor(m: ChatMessageRow, attached: ConversationFiles): ModelMessage {
  const ids = (m.files ?? []).map((f) => f.fileId).filter((id): id is string => typeof id === 'string');
  if (m.role === 'assistant') return { role: 'assistant', content: m.content };
  if (m.role === 'user') return { role: 'user', content: userContent(withFiles(m.content, ids, attached), ids, attached) };
  return { role: 'user', content: asUntrustedData(`chat:${m.role}`, withFiles(m.content, ids, attached)) };
}

/** Tool calls as the model made them: an assistant message with the calls, then one tool message with every result. */
function toolMessages(calls: ChatToolCallRow[]): ModelMessage[] {
  if (!calls.length) return [];
  return [
    { role: 'assistant', content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.callId, toolName: c.toolName, input: c.input ?? {} })) },
    {
      role: 'tool',
      content: calls.map((c) => ({
        type: 'tool-result' as const,
        toolCallId: c.callId,
        toolName: c.toolName,
        output: { type: 'text' as const, value: asUntrustedData(`tool:${c.toolName}`, c.output) },
      })),
    },
  ];
}

/** Calls of one model step (in order), grouped so each step's calls travel in one assistant message. */
function bySteps(calls: ChatToolCallRow[]): ChatToolCallRow[][] {
  const steps = new Map<number, ChatToolCallRow[]>();
  for (const c of calls) steps.set(c.step, [...(steps.get(c.step) ?? []), c]);
  return [...steps.keys()].sort((a, b) => a - b).map((k) => steps.get(k)!.sort((a, b) => a.position - b.position));
}

/**
 * What the model sees in a chat turn (spec 4, What the model sees), built by the one context
 * builder (server/agent/runtime/context.ts): the system message, the owner's memories, then the
 * chat so far up to the message this turn answers (the user's as `user`, the assistant's replies as
 * `assistant` with the tool calls that led to each replayed before it), the answered message last,
 * then this turn's own tool calls so far. Read as the chat's owner; nothing of another user or chat
 * can appear. The chat keeps no taint mark (taint.ts asks when a task is opened).
 */
export function chatContext(db: Db, actor: UserActor, chat: ChatRef, turn: Turn, now: Date): Promise<ModelContext> {
  const read = (async () => {
    const [answered] = await db.select().from(chatMessages).where(and(eq(chatMessages.id, turn.messageId), eq(chatMessages.chatId, chat.id)));
    // Compared in SQL: the stored microseconds, not the milliseconds a JS Date keeps.
    const upTo = answered ? lte(chatMessages.createdAt, sql`(SELECT m.created_at FROM chat_messages m WHERE m.id = ${answered.id})`) : undefined;
    const history = await db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.chatId, chat.id), upTo))
      .orderBy(asc(chatMessages.createdAt), asc(chatMessages.id));
    return { answered: answered ?? null, recent: history.slice(-MAX_MESSAGES) };
  })();
  const conversation = (async (): Promise<Conversation> => {
    const [{ answered, recent }, calls, [tier], turns] = await Promise.all([
      read,
      db.select().from(chatToolCalls).where(eq(chatToolCalls.chatId, chat.id)),
      db.select({ modelTier: chats.modelTier }).from(chats).where(eq(chats.id, chat.id)),
      db.select({ id: chatTurns.id, replyMessageId: chatTurns.replyMessageId }).from(chatTurns).where(eq(chatTurns.chatId, chat.id)),
    ]);
    // The answered message goes last (a message saved in the same instant sorts by id only).
    const ordered = answered ? [...recent.filter((m) => m.id !== answered.id), answered] : recent;
    // Earlier turns' tool calls go just before the reply they led to.
    const replyOf = new Map(turns.filter((t) => t.replyMessageId).map((t) => [t.replyMessageId!, t.id]));
    const callsOf = new Map<string, ChatToolCallRow[]>();
    for (const c of calls) callsOf.set(c.turnId, [...(callsOf.get(c.turnId) ?? []), c]);
    return {
      tier: tier?.modelTier ?? '',
      fileIds: [...recent, ...(answered ? [answered] : [])].flatMap((m) => (m.files ?? []).map((f) => f.fileId)),
      messages: (attached) => {
        const messages: ModelMessage[] = [];
        for (const m of ordered) {
          const ledBy = replyOf.get(m.id);
          if (ledBy && ledBy !== turn.id) for (const step of bySteps(callsOf.get(ledBy) ?? [])) messages.push(...toolMessages(step));
          messages.push(messageFor(m, attached));
        }
        for (const step of bySteps(callsOf.get(turn.id) ?? [])) messages.push(...toolMessages(step));
        return messages;
      },
      taint: () => [],
    };
  })();
  // Recall: the memories relevant to the message this turn answers and the messages before it
  // (server/agent/runtime/recall-subject.ts).
  const subject = read.then(({ answered, recent }) => chatRecallInput(answered, recent));
  return modelContext(db, actor, { host: 'chat', accountId: chat.accountId, userId: chat.userId, assistantId: chat.assistantId, stranger: null }, { subject, conversation }, now);
}
