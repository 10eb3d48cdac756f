import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskActivities } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { recordActivities, type NewActivity } from '@/server/tasks/activities';
import { recordTaint } from '@/server/tasks/taint';
import { toolTaint } from './taint';
import type { ToolCallRequest } from './model-turn';
import { accountFrozen, ownerActor } from './owner-actor';
import { lockedRun, userMessageCount } from './run-state';
import type { ToolOutcome, ToolRegistry } from './tools/registry';

/** Whether the run goes on after this tool call; `frozen` when the account's kill switch stopped it before the call. */
export type ToolStep = { endsRun: boolean; frozen?: boolean };

/** Thrown inside a tool's savepoint to undo a call that would end the run on a decision the user's newer message may change. */
class Superseded extends Error {}

/** What the model is told instead of the effect of a run-ending call it made before reading the user's newer message. */
const supersededOutput = {
  notDone: true,
  reason: 'The user sent a new message after you decided this, so it was not carried out. Read the message, then call the tool again if it still applies.',
};

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
 *
 * While the account is frozen the call is not made and nothing is recorded: the run stops here
 * (end-run.ts puts the task on hold). A call that would end the run (complete_task, ask_user,
 * set_alarm...) made before the model read a message the user sent meanwhile (`seenUserMessages`
 * is what its model call read) is undone with its savepoint and answered with `notDone`: the run
 * goes on and the next model call reads the message, so it is never left unanswered. Tools that
 * end a run therefore keep their whole effect in the database.
 */
export async function runToolStep(
  db: Db,
  runId: string,
  call: ToolCallRequest,
  text: string,
  tools: ToolRegistry,
  seenUserMessages?: number,
  now = new Date(),
): Promise<ToolStep> {
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
    if (actor && accountFrozen(actor)) return { endsRun: true, frozen: true };
    const tool = tools.get(call.toolName);
    let outcome: ToolOutcome;
    if (!actor) outcome = { output: { error: 'The task’s owner can no longer act; nothing was done.' }, endsRun: true };
    else if (!tool) outcome = { output: { error: `There is no tool ${call.toolName}. Tools: ${tools.names().join(', ')}` } };
    else {
      const parsed = tool.input.safeParse(call.input);
      if (!parsed.success) {
        outcome = { output: { error: 'Invalid input', issues: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })) } };
      } else {
        // Read under the task's lock: process takes the same lock to attach a message, so a message is either counted here or arrives after this step.
        const late = seenUserMessages !== undefined && (await userMessageCount(tx, task.id)) > seenUserMessages;
        // A savepoint: a refused call leaves none of its writes, and its refusal is still recorded.
        let ran = false;
        outcome = await tx
          .transaction(async (sp) => {
            const result = await tool.handler(sp, actor, task, parsed.data, { runId: run.id, now });
            if (result.endsRun && late) throw new Superseded();
            ran = true;
            return result;
          })
          .catch((e: unknown) => (e instanceof Superseded ? { output: supersededOutput } : refusal(e)));
        // What a web page, a document, a mailbox or an MCP server answered enters the run's context with this activity: the run is tainted from here.
        const source = ran ? toolTaint(call.toolName, parsed.data, outcome.output) : null;
        if (source) await recordTaint(tx, task.id, run.id, [source]);
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
