import { z } from 'zod';
import type { Db } from '@/db/client';
import type { ChatRow } from '@/db/schema';
import { accountFrozen, chatOwnerActor } from '@/server/agent/runtime/owner-actor';
import type { RealtimeTool } from '@/server/channels/realtime/session';
import type { ToolAnswer } from '@/server/channels/realtime/conversation';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { chatTools } from './tools';
import type { ChatRef } from './tools/registry';

/*
 * The chat turn's tools in a live spoken conversation (issue 48): the owner's phone call and the
 * hosted app's live voice both offer the model exactly the tools of a chat turn (chatTools()),
 * run as the chat's owner (chatOwnerActor: an agent credential, which never decides an approval,
 * so what a tool prepares is staged, never released, by the conversation). Each call runs in its
 * own transaction with a savepoint; a refusal is answered to the model (it can correct itself).
 * They are not recorded in chat_tool_calls (that table is keyed by a chat turn, and a
 * conversation is not one); their effects (a task, a memory) are what the owner sees.
 */

export type SpokenTools = {
  /** The tools as the realtime session declares them. */
  tools: RealtimeTool[];
  run: (name: string, args: unknown) => Promise<ToolAnswer>;
};

/** A tool's refusal as the model reads it; anything unexpected is logged and answered the same way. */
function refusal(e: unknown, log: Record<string, unknown>, name: string): ToolAnswer {
  if (e instanceof AppError) return { output: { error: e.message, ...(Object.keys(e.extra).length ? { details: e.extra } : {}) } };
  logger.error({ err: e, ...log, tool: name }, 'voice: a tool call during a live conversation failed');
  return { output: { error: 'The tool failed; nothing was done.' } };
}

/**
 * The tools of `chat` for a conversation whose runs are named `runId` (`call:<id>`, `live:<id>`).
 * `extra` names the conversation's own tools (end_call), listed when the model asks for one that does not exist.
 */
export function spokenTools(db: Db, chat: Pick<ChatRow, 'id' | 'accountId' | 'userId' | 'assistantId'>, runId: string, ownerName: string, extra: string[] = []): SpokenTools {
  const registry = chatTools();
  const ref: ChatRef = { id: chat.id, accountId: chat.accountId, userId: chat.userId, assistantId: chat.assistantId };
  const schemaOf = (name: string) => {
    const t = registry.get(name)!;
    return (t.inputJsonSchema ?? z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
  };
  return {
    tools: registry.names().map((n) => ({ name: n, description: registry.get(n)!.description, parameters: schemaOf(n) })),
    run: async (name, args) => {
      const tool = registry.get(name);
      if (!tool) return { output: { error: `There is no tool ${name}. Tools: ${[...registry.names(), ...extra].join(', ')}` } };
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) return { output: { error: 'Invalid input', issues: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })) } };
      return db
        .transaction(async (tx) => {
          const actor = await chatOwnerActor(tx, ref, runId);
          if (!actor) return { output: { error: `${ownerName} can no longer act; nothing was done.` } };
          if (accountFrozen(actor)) return { output: { error: 'The account is paused; nothing was done.' } };
          const done = await tx.transaction((sp) => tool.handler(sp, actor, ref, parsed.data, { runId, now: new Date() }));
          logger.info({ runId, tool: name, taskId: done.taskId }, 'voice: a tool ran during a live conversation');
          return { output: done.output };
        })
        .catch((e: unknown) => refusal(e, { runId }, name));
    },
  };
}
