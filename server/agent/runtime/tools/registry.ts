import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';
import type { z } from 'zod';
import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';

/** What the runtime knows besides the tool's input: the run it belongs to (a task run's id, or a chat turn's) and the run's clock. */
export type ToolRun = { runId: string; now: Date };

/**
 * What a tool call did. `output` goes back to the model (as untrusted data) and into the host's
 * record of the call; `say` becomes an assistant activity after it (ask_user's question);
 * `endsRun` when the tool moved the task out of executing (completed, waiting), so the run stops
 * there; `taskId` when it opened a task (a chat turn's `message` event names it). A run-ending
 * tool keeps its whole effect in the database: it is undone (its savepoint rolled back) when a
 * newer message of the user supersedes it, and the model is told so.
 */
export type ToolOutcome = { output: unknown; say?: string; endsRun?: boolean; taskId?: string };

/**
 * One tool the model may call. Its handler gets the owner's actor, never more, and the run's
 * subject: the task (TaskRow) of a task run, the chat (ChatRef) of a chat turn; a tool that does
 * not look at it (read_file, search_contacts) takes `unknown` and serves both. Each tool is a thin
 * adapter over an area's service, so the agent reaches exactly what its user could. It runs
 * inside the step's transaction (a savepoint), together with the host's record of the call, so a
 * retried step never repeats its effect, and a refused call leaves nothing half-written.
 */
export type AgentTool<S extends z.ZodType = z.ZodType, Subject = TaskRow> = {
  name: string;
  description: string;
  input: S;
  /**
   * What the model is shown as the input schema, when the tool's own is JSON Schema (an MCP
   * server's tool): `input` then only checks the shape (an object) and the server validates.
   */
  inputJsonSchema?: JSONSchema7;
  handler: (db: Tx, actor: UserActor, subject: Subject, input: z.infer<S>, run: ToolRun) => Promise<ToolOutcome>;
};

/** Keeps a tool's input type tied to its schema where it is declared (a task tool unless another subject is named). */
export const defineTool = <S extends z.ZodType, Subject = TaskRow>(t: AgentTool<S, Subject>): AgentTool<S, Subject> => t;

/**
 * The tools of one run, by name, for one kind of subject (a task run's, a chat turn's). Later
 * kinds (staging tools, the workspace browser, an installed MCP skill's `mcp__<skill>__<tool>`)
 * plug in as further AgentTools: per run, since a user's skills decide which exist.
 */
export class ToolRegistry<Subject = TaskRow> {
  private readonly tools = new Map<string, AgentTool<z.ZodType, Subject>>();

  // A tool of any input schema (the step parses the input with it before the handler runs); the subject is checked.
  constructor(tools: readonly AgentTool<any, Subject>[] = []) {
    for (const t of tools) this.register(t);
  }

  register(t: AgentTool<any, Subject>): this {
    if (this.tools.has(t.name)) throw new Error(`tool ${t.name} is registered twice`);
    this.tools.set(t.name, t);
    return this;
  }

  get(name: string): AgentTool<z.ZodType, Subject> | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * The tools as the ai SDK sends them to the model: description and JSON schema only, no
   * `execute`, so a model call returns the calls and the runtime runs each as its own step.
   */
  definitions(): Record<string, Tool> {
    return Object.fromEntries(
      [...this.tools.values()].map((t) => [t.name, tool({ description: t.description, inputSchema: t.inputJsonSchema ? jsonSchema(t.inputJsonSchema) : t.input })]),
    );
  }
}
