import type { Db } from '@/db/client';
import { AppError } from '@/server/http/errors';
import type { ToolCallAt, ToolHost, ToolStep } from './host';
import { accountFrozen, ownerActor } from './owner-actor';
import { toolTaint } from './taint';
import type { ToolOutcome, ToolRegistry } from './tools/registry';

export type { ToolStep } from './host';

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
 * One tool call of a run or turn, as its own step, for either host (host.ts): the tool's effect
 * and the host's record of the call (a task's tool activity, with the text the model wrote with
 * the calls on the first call; a chat's tool-call row and `tool_result` event) in one
 * transaction. A step retried after a crash finds its record and does nothing again, so no tool
 * effect happens twice. Input is validated against the tool's schema; a refused or unknown call
 * is answered to the model as an error it can correct.
 *
 * While the account is frozen the call is not made and nothing is recorded: the run stops here.
 * A call that would end the run (complete_task, ask_user, set_alarm...) made before the model
 * read a message the user sent meanwhile (the host's `late`) is undone with its savepoint and
 * answered with `notDone`: the run goes on and the next model call reads the message, so it is
 * never left unanswered. Tools that end a run therefore keep their whole effect in the database.
 * What a web page, a document, a mailbox or an MCP server answered is outside content: the host
 * notes it (a task run is tainted from here).
 */
export async function toolStep<Subject>(db: Db, host: ToolHost<Subject>, at: ToolCallAt, tools: ToolRegistry<Subject>, now = new Date()): Promise<ToolStep> {
  const { step, committed } = await db.transaction(async (tx) => {
    const go = await host.begin(tx, at);
    if ('endsRun' in go) return { step: go };
    const actor = await ownerActor(tx, go.owner, go.runId);
    if (actor && accountFrozen(actor)) return { step: { endsRun: true, frozen: true } };
    const { call } = at;
    const tool = tools.get(call.toolName);
    let outcome: ToolOutcome;
    if (!actor) outcome = host.ownerGone;
    else if (!tool) outcome = { output: { error: `There is no tool ${call.toolName}. Tools: ${tools.names().join(', ')}` } };
    else {
      const parsed = tool.input.safeParse(call.input);
      if (!parsed.success) {
        outcome = { output: { error: 'Invalid input', issues: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })) } };
      } else {
        // Read under the run's lock: process takes the same lock to attach a message, so a message is either counted here or arrives after this step.
        const late = go.late ? await go.late() : false;
        // A savepoint: a refused call leaves none of its writes, and its refusal is still recorded.
        let ran = false;
        outcome = await tx
          .transaction(async (sp) => {
            const result = await tool.handler(sp, actor, go.subject, parsed.data, { runId: go.runId, now });
            if (result.endsRun && late) throw new Superseded();
            ran = true;
            return result;
          })
          .catch((e: unknown) => (e instanceof Superseded ? { output: supersededOutput } : refusal(e)));
        const source = ran ? toolTaint(call.toolName, parsed.data, outcome.output) : null;
        if (source && host.noteToolTaint) await host.noteToolTaint(tx, go, source);
      }
    }
    const committed = await host.record(tx, go, at, outcome);
    return { step: { endsRun: outcome.endsRun === true }, committed };
  });
  committed?.();
  return step;
}
