import type { z } from 'zod';
import { defineTool, type AgentTool, type ToolOutcome, type ToolRegistry, type ToolRun } from '@/server/agent/runtime/tools/registry';

/*
 * A chat turn's tools are the agent's tools (server/agent/runtime/tools/registry.ts) whose subject
 * is the chat: the same registry, the same tool step, the owner's actor and nothing more.
 */

/** What a chat tool knows of its chat: whose it is and which assistant answers in it. */
export type ChatRef = { id: string; accountId: string; userId: string; assistantId: string };
/** A chat turn is a run of the assistant: `runId` is the turn's id. */
export type ChatToolRun = ToolRun;
export type ChatToolOutcome = ToolOutcome;
export type ChatTool<S extends z.ZodType = z.ZodType> = AgentTool<S, ChatRef>;
export type ChatToolRegistry = ToolRegistry<ChatRef>;

export const defineChatTool = <S extends z.ZodType>(t: ChatTool<S>): ChatTool<S> => defineTool<S, ChatRef>(t);
