import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { ModelMessage } from 'ai';
import type { Db } from '@/db/client';
import { assistants, chatMessages, chats, chatToolCalls, chatTurns, type ChatMessageRow, type ChatToolCallRow } from '@/db/schema';
import { conversationFiles, tierSeesImages } from '@/server/files/attached';
import { skillSections, skillsSection } from '@/server/workflows/skill-context';
import { userContent, withFiles, type ConversationFiles } from './conversation';
import type { UserActor } from '@/server/access/actor';
import type { ChatRef } from '@/server/chats/tools/registry';
import { MAX_CHAT_TOOL_STEPS } from '@/server/chats/tools';
import { getScheduling } from '@/server/users/scheduling';
import { chatSystemMessage } from './chat-system-message';
import { memoriesMessage, recallForRun } from './memories';
import { chatRecallInput } from './recall-subject';
import { personaFor } from './persona';
import type { WorkingHours } from './system-message';
import { asUntrustedData } from './untrusted';

/** The newest messages a turn replays. */
const MAX_MESSAGES = 200;

type Turn = { id: string; messageId: string };

/**
 * A message as the model reads it: the user's own verbatim, anyone else's as untrusted data; the
 * files it carries named (name, type, size, id: read_file reads them), images shown to a tier that
 * sees them (conversation.ts). Only files the chat's owner may read are named.
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
 * What the model sees in a chat turn (spec 4, What the model sees): the system message, the
 * owner's memories, then the chat so far up to the message this turn answers (the user's as
 * `user`, the assistant's replies as `assistant` with the tool calls that led to each replayed
 * before it), the answered message last, then this turn's own tool calls so far. Read as the
 * chat's owner; nothing of another user or chat can appear.
 */
export async function chatContext(db: Db, actor: UserActor, chat: ChatRef, turn: Turn, now: Date): Promise<{ system: string; messages: ModelMessage[] }> {
  const [[assistant], scheduling, [answered]] = await Promise.all([
    db
      .select()
      .from(assistants)
      .where(and(eq(assistants.id, chat.assistantId), eq(assistants.accountId, chat.accountId), isNull(assistants.deletedAt))),
    getScheduling(db, actor, actor.user.id),
    db.select().from(chatMessages).where(and(eq(chatMessages.id, turn.messageId), eq(chatMessages.chatId, chat.id))),
  ]);
  // Compared in SQL: the stored microseconds, not the milliseconds a JS Date keeps.
  const upTo = answered ? lte(chatMessages.createdAt, sql`(SELECT m.created_at FROM chat_messages m WHERE m.id = ${answered.id})`) : undefined;
  const [history, calls] = await Promise.all([
    db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.chatId, chat.id), upTo))
      .orderBy(asc(chatMessages.createdAt), asc(chatMessages.id)),
    db.select().from(chatToolCalls).where(eq(chatToolCalls.chatId, chat.id)),
  ]);
  const recent = history.slice(-MAX_MESSAGES);
  // Recall: the memories relevant to the message this turn answers and the messages before it, pinned ones, recent ones (memories.ts).
  const recalled = recallForRun(db, actor, chatRecallInput(answered ?? null, recent), now);
  // Awaited below; a failure before then must not go unhandled.
  recalled.catch(() => undefined);
  const [tier] = await db.select({ modelTier: chats.modelTier }).from(chats).where(eq(chats.id, chat.id));
  const attached = await conversationFiles(
    db,
    actor,
    [...recent, ...(answered ? [answered] : [])].flatMap((m) => (m.files ?? []).map((f) => f.fileId)),
    tierSeesImages(tier?.modelTier ?? ''),
  );
  // The answered message goes last (a message saved in the same instant sorts by id only).
  const ordered = answered ? [...recent.filter((m) => m.id !== answered.id), answered] : recent;

  // Earlier turns' tool calls go just before the reply they led to.
  const turns = await db.select({ id: chatTurns.id, replyMessageId: chatTurns.replyMessageId }).from(chatTurns).where(eq(chatTurns.chatId, chat.id));
  const replyOf = new Map(turns.filter((t) => t.replyMessageId).map((t) => [t.replyMessageId!, t.id]));
  const callsOf = new Map<string, ChatToolCallRow[]>();
  for (const c of calls) callsOf.set(c.turnId, [...(callsOf.get(c.turnId) ?? []), c]);

  const workingHours = scheduling.schedulingPreferences.availability.workingHours as WorkingHours;
  const persona = await personaFor(db, assistant ?? null, actor.user);
  // A chat names no skills: the ones that apply always join it, after the chat's own rules.
  const skills = skillsSection(await skillSections(db, { accountId: chat.accountId, userId: chat.userId }));
  const system = [chatSystemMessage({ assistant: assistant ?? null, user: actor.user, workingHours, now, maxSteps: MAX_CHAT_TOOL_STEPS, persona: persona.lines }), ...skills].join('\n');
  const messages: ModelMessage[] = [];
  const remembered = memoriesMessage(await recalled);
  if (remembered) messages.push({ role: 'user', content: remembered });
  for (const m of ordered) {
    const ledBy = replyOf.get(m.id);
    if (ledBy && ledBy !== turn.id) for (const step of bySteps(callsOf.get(ledBy) ?? [])) messages.push(...toolMessages(step));
    messages.push(messageFor(m, attached));
  }
  for (const step of bySteps(callsOf.get(turn.id) ?? [])) messages.push(...toolMessages(step));
  return { system, messages };
}
