import { storableJson, storableText } from '@/db/storable';
import { eq } from 'drizzle-orm';
import { generateText } from 'ai';
import { modelTelemetry } from '../models/telemetry';
import type { Db } from '@/db/client';
import { taskRuns, tasks, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { ModelNotConfiguredError } from '@/server/agent/models/errors';
import { languageModel } from '@/server/agent/models/language-model';
import type { ModelTier } from '@/server/agent/models/tiers';
import { stewardUsage, type StewardUsage } from '@/server/agent/models/usage';
import { newTaint, recordTaint } from '@/server/tasks/taint';
import { benchSwitches } from './bench-switches';
import { runContext } from './context';
import { accountFrozen, ownerActor } from './owner-actor';
import { userMessageCount } from './run-state';
import type { ToolRegistry } from './tools/registry';

export type ToolCallRequest = { toolCallId: string; toolName: string; input: unknown };

/** One model call's result, as the step stores it (JSON): replayed on restart instead of calling again. */
export type ModelTurn =
  | {
      kind: 'answer';
      text: string;
      toolCalls: ToolCallRequest[];
      usage: StewardUsage;
      modelId: string;
      finishReason: string;
      /** The tier the run asked for, the tier whose model served it (prices follow it), and whether the deployment bills it. */
      tier: ModelTier;
      servedBy: ModelTier;
      billable: boolean;
      /**
       * How many messages of the user the call read. A later count above it means the user wrote
       * while the model was answering: the run must not end without a call that reads it.
       * Absent on results stored before it existed (nothing is then taken as late).
       */
      seenUserMessages?: number;
    }
  | { kind: 'not_configured'; message: string }
  | { kind: 'stopped'; reason: string }
  /** The account's kill switch is engaged: no call was made. */
  | { kind: 'frozen' };

/**
 * The context and the number of user messages it holds. Activities are append-only, so equal
 * counts before and after the read mean the read saw exactly that many; a message committed in
 * between makes it read again (rarely more than once). Should the count keep moving, the lower
 * one is kept: a message may then be taken as late although it was read (one extra call), but a
 * message is never taken as read when it was not.
 */
async function contextAndCount(db: Db, actor: UserActor, task: TaskRow, now: Date) {
  for (let attempt = 1; ; attempt++) {
    const before = await userMessageCount(db, task.id);
    const context = await runContext(db, actor, task, now);
    const after = await userMessageCount(db, task.id);
    if (before === after || attempt === 3) return { context, seenUserMessages: before };
  }
}

/**
 * One model call of a run: the context as it is now (a message sent during the run is in it), the
 * tools without `execute` so the SDK returns the calls instead of running them. A run stopped
 * meanwhile (stop, mark done), or whose account is frozen, makes no call.
 */
export async function modelTurn(db: Db, runId: string, tools: ToolRegistry, now = new Date()): Promise<ModelTurn> {
  const [row] = await db.select({ run: taskRuns, task: tasks }).from(taskRuns).innerJoin(tasks, eq(tasks.id, taskRuns.taskId)).where(eq(taskRuns.id, runId));
  if (!row) return { kind: 'stopped', reason: 'the run or its task no longer exists' };
  if (row.run.status !== 'running') return { kind: 'stopped', reason: `the run is ${row.run.status}` };
  if (row.task.status !== 'executing') return { kind: 'stopped', reason: `the task is ${row.task.status}` };
  const actor = await ownerActor(db, row.task, runId);
  if (!actor) return { kind: 'stopped', reason: 'the task’s owner can no longer act' };
  if (accountFrozen(actor)) return { kind: 'frozen' };

  let resolved;
  try {
    resolved = await languageModel(db, row.task.accountId, row.run.modelTier);
  } catch (e) {
    if (e instanceof ModelNotConfiguredError) return { kind: 'not_configured', message: e.message };
    throw e;
  }
  const { context, seenUserMessages } = await contextAndCount(db, actor, row.task, now);
  // Untrusted content in what the model is about to read taints the run and the task first, so the
  // platform holds what this run stages (approvals/staging.ts) whatever the model makes of it.
  if (benchSwitches.trustChecks && (newTaint(row.run.taintSources, context.taint).length || (context.taint.length && !row.run.tainted))) {
    await db.transaction((tx) => recordTaint(tx, row.task.id, runId, context.taint));
  }
  const result = await generateText({
    model: resolved.model,
    system: context.system,
    messages: context.messages,
    tools: tools.definitions(),
    // The step is retried by the durable engine; one quick retry here absorbs a dropped connection.
    maxRetries: 1,
    experimental_telemetry: modelTelemetry('task-run'),
  });
  return {
    kind: 'answer',
    // What the model wrote may echo anything it read: as Postgres can store it, for every write that follows (db/storable.ts).
    text: storableText(result.text),
    toolCalls: result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: storableJson(c.input ?? {}) })),
    usage: stewardUsage(result.usage),
    modelId: resolved.modelId,
    finishReason: result.finishReason,
    tier: resolved.tier,
    servedBy: resolved.servedBy,
    billable: resolved.billable,
    seenUserMessages,
  };
}
