import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskActivities } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { recordActivities, type NewActivity } from '@/server/tasks/activities';
import type { ToolCallRequest } from './model-turn';
import { ownerActor } from './owner-actor';
import { lockedRun } from './run-state';
import type { ToolOutcome, ToolRegistry } from './tools/registry';

/** Whether the run goes on after this tool call. */
export type ToolStep = { endsRun: boolean };

/** What the model is told when a call cannot run: a refusal it can correct, never an internal error. */
function refusal(e: unknown): ToolOutcome {
  if (e instanceof AppError) return { output: { error: e.message, ...(Object.keys(e.extra).length ? { details: e.extra } : {}) } };
  throw e;
}

/**
 * One tool call of a run, as its own step: the tool's effect, the tool activity (and the text the
 * model wrote with the calls, on the first call) in one transaction. A step retried after a crash
 * finds its activity and does nothing again, so no tool effect happens twice. Input is validated
 * against the tool's schema; a refused or unknown call is answered to the model as an error.
 */
export async function runToolStep(db: Db, runId: string, call: ToolCallRequest, text: string, tools: ToolRegistry, now = new Date()): Promise<ToolStep> {
  return db.transaction(async (tx) => {
    const locked = await lockedRun(tx, runId);
    if (!locked || locked.run.status !== 'running') return { endsRun: true };
    const { task, run } = locked;
    const [done] = await tx
      .select({ id: taskActivities.id })
      .from(taskActivities)
      .where(and(eq(taskActivities.taskId, task.id), eq(taskActivities.runId, run.id), eq(taskActivities.toolCallId, call.toolCallId)))
      .limit(1);
    if (done) return { endsRun: task.status !== 'executing' };
    if (task.status !== 'executing') return { endsRun: true };

    const actor = await ownerActor(tx, task, run.id);
    const tool = tools.get(call.toolName);
    let outcome: ToolOutcome;
    if (!actor) outcome = { output: { error: 'The task’s owner can no longer act; nothing was done.' }, endsRun: true };
    else if (!tool) outcome = { output: { error: `There is no tool ${call.toolName}. Tools: ${tools.names().join(', ')}` } };
    else {
      const parsed = tool.input.safeParse(call.input);
      if (!parsed.success) {
        outcome = { output: { error: 'Invalid input', issues: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })) } };
      } else {
        // A savepoint: a refused call leaves none of its writes, and its refusal is still recorded.
        outcome = await tx.transaction((sp) => tool.handler(sp, actor, task, parsed.data, { runId: run.id, now })).catch(refusal);
      }
    }
    const items: NewActivity[] = [];
    if (text.trim()) items.push({ kind: 'assistant', content: text, runId: run.id });
    items.push({ kind: 'tool', runId: run.id, toolName: call.toolName, toolCallId: call.toolCallId, toolInput: call.input ?? {}, toolOutput: outcome.output ?? null });
    if (outcome.say) items.push({ kind: 'assistant', content: outcome.say, runId: run.id });
    await recordActivities(tx, task, items);
    return { endsRun: outcome.endsRun === true };
  });
}
