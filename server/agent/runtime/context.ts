import { and, eq, isNull } from 'drizzle-orm';
import type { ModelMessage } from 'ai';
import type { Db } from '@/db/client';
import { assistants, type TaintSource } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { conversationFiles, tierSeesImages } from '@/server/files/attached';
import { getScheduling } from '@/server/users/scheduling';
import { skillSections, skillsSection } from '@/server/workflows/skill-context';
import { benchSwitches } from './bench-switches';
import type { ConversationFiles } from './conversation';
import type { ModelContext } from './host';
import { memoriesMessage, noMemories, recallForRun } from './memories';
import { personaFor } from './persona';
import type { RecallSubject } from './recall-subject';
import { systemMessage, type WorkingHours } from './system-message';

/*
 * The one context builder of the agent loop (spec: What the model sees), for both hosts: the
 * system message (who the assistant is and works for, when it is, the host's rules, the skills
 * that apply, and a task run's note on why it started), the owner's memories (recall, chosen
 * for what the run is about), then the host's conversation: a task's (task-conversation.ts) or
 * a chat's (server/chats/chat-conversation.ts). Everything is read as the owner. A conversation
 * with a stranger (the audience rule, messaging/audience.ts) reads nothing private of the owner:
 * no memories, no files, no skills, no persona, and the system message says whom the run answers.
 */

/** Who the run is for and with what it runs: the rows the builder reads beside the conversation. */
export type ContextSource = {
  host: 'task' | 'chat';
  accountId: string;
  userId: string;
  assistantId: string;
  /** The skills a task names (none: all that apply); a chat names none. */
  skills?: readonly string[];
  /** Whom a conversation with a stranger answers (tasks/strangers.ts); null: the owner. */
  stranger: string | null;
};

/** A host's conversation, as read for one model call. */
export type Conversation = {
  /** The model tier whose model reads it (images are shown to a tier that sees them). */
  tier: string;
  /** The files its messages carry (named where attached; images shown). */
  fileIds: string[];
  /** Steward's note on why the run started (a task run), given the owner's timezone. */
  wakeNote?: (reader: { timezone: string; locale: string }) => string[];
  /** Its messages after the memories, with its files. */
  messages: (attached: ConversationFiles) => ModelMessage[];
  /** The outside content in it, in order, the memories' sources given (taint.ts); a host that keeps no mark answers []. */
  taint: (attached: ConversationFiles, memories: TaintSource[]) => TaintSource[];
};

/** What a host reads: its conversation, and (as soon as it is known) what the run is about, so recall starts early. */
export type ConversationRead = { subject: Promise<RecallSubject>; conversation: Promise<Conversation> };

export async function modelContext(db: Db, actor: UserActor, source: ContextSource, read: ConversationRead, now: Date): Promise<ModelContext> {
  const { stranger } = source;
  const who = { accountId: source.accountId, userId: source.userId };
  // Recall: the memories relevant to what the run is about, pinned ones, recent ones (memories.ts).
  const recalled = stranger ? Promise.resolve(noMemories()) : read.subject.then((subject) => recallForRun(db, actor, subject, now));
  // Awaited below; a failure before then must not go unhandled.
  recalled.catch(() => undefined);
  const [[assistant], scheduling, conversation, skills] = await Promise.all([
    db
      .select()
      .from(assistants)
      .where(and(eq(assistants.id, source.assistantId), eq(assistants.accountId, source.accountId), isNull(assistants.deletedAt))),
    getScheduling(db, actor, actor.user.id),
    read.conversation,
    // The user's and the account's instructions and prompt skills; a stranger conversation gets none of the owner's configuration.
    stranger ? Promise.resolve([]) : skillSections(db, who, source.skills ?? []),
  ]);
  const [persona, attached, memories] = await Promise.all([
    personaFor(db, assistant ?? null, actor.user),
    // The files the conversation carries, read as the owner; a stranger conversation is shown none of the owner's files, whoever attached them.
    conversationFiles(db, actor, stranger ? [] : conversation.fileIds, tierSeesImages(conversation.tier)),
    recalled,
  ]);
  const workingHours = scheduling.schedulingPreferences.availability.workingHours as WorkingHours;
  // The system message travels in the SDK's `system` option: it is sent first, and only Steward writes it.
  const system = systemMessage({
    host: source.host,
    assistant: assistant ?? null,
    user: actor.user,
    workingHours,
    now,
    wakeNote: conversation.wakeNote?.({ timezone: actor.user.timezone, locale: actor.user.locale }),
    // A stranger conversation knows nothing of the owner's organization or team either.
    persona: stranger ? [] : persona.lines,
    skills: skillsSection(skills),
    // The run answers someone else: it is told it holds nothing of the owner's (messaging/audience.ts).
    contactFacing: stranger,
  });
  const messages: ModelMessage[] = [];
  const remembered = memoriesMessage(memories);
  if (remembered) messages.push({ role: 'user', content: remembered });
  messages.push(...conversation.messages(attached));
  const taint = benchSwitches.trustChecks ? conversation.taint(attached, memories.taint) : [];
  return { system, messages, taint };
}
