import { tool, type Tool } from 'ai';
import type { z } from 'zod';
import type { Tx } from '@/db/client';
import type { UserActor } from '@/server/access/actor';

/** What a chat tool knows of its chat: whose it is and which assistant answers in it. */
export type ChatRef = { id: string; accountId: string; userId: string; assistantId: string };
export type ChatToolRun = { turnId: string; now: Date };

/** What a call did: `output` goes back to the model (as untrusted data); `taskId` when it opened a task (the `message` event's taskIds). */
export type ChatToolOutcome = { output: unknown; taskId?: string };

/**
 * One tool of a chat turn. Like the task tools (server/agent/runtime/tools/registry.ts) each is a
 * thin adapter over an area's service, run with the chat owner's actor and nothing more, inside
 * the tool step's transaction (a savepoint), so a retried step never repeats its effect.
 */
export type ChatTool<S extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  input: S;
  handler: (db: Tx, actor: UserActor, chat: ChatRef, input: z.infer<S>, run: ChatToolRun) => Promise<ChatToolOutcome>;
};

export const defineChatTool = <S extends z.ZodType>(t: ChatTool<S>): ChatTool<S> => t;

export class ChatToolRegistry {
  private readonly tools = new Map<string, ChatTool>();

  constructor(tools: readonly ChatTool[]) {
    for (const t of tools) {
      if (this.tools.has(t.name)) throw new Error(`chat tool ${t.name} is registered twice`);
      this.tools.set(t.name, t);
    }
  }

  get(name: string): ChatTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Description and schema only (no `execute`): the model call returns the calls, each then runs as its own step. */
  definitions(): Record<string, Tool> {
    return Object.fromEntries([...this.tools.values()].map((t) => [t.name, tool({ description: t.description, inputSchema: t.input })]));
  }
}
