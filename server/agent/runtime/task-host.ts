import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { taskActivities, taskRuns, tasks, type TaskRow, type TaskRunRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { reservationOf, reservationSql, type Reservation, type ReserveResult } from '@/server/budgets/reserve';
import { recordActivities, type NewActivity } from '@/server/tasks/activities';
import { newTaint, recordTaint } from '@/server/tasks/taint';
import { runContext } from './task-conversation';
import { endRun } from './end-run';
import type { LoopHost, ModelContext, OpenedCall } from './host';
import { ownerActor } from './owner-actor';
import { lockedRun, userMessageCount } from './run-state';
import type { RunLimits } from './start-run';
import { taskToolsForRun } from './tools/core';

/*
 * The task run as a host of the agent loop (host.ts): the run and its task are the rows, the
 * model reads the task's conversation (task-conversation.ts), the answer and every tool call become the
 * task's activities, taint is recorded on the task and its run, and the run ends through
 * end-run.ts (the task's final move). A user's message that the model call did not read keeps
 * the run going (`seenUserMessages`).
 */

type OpenedRun = OpenedCall & { run: TaskRunRow; task: TaskRow };

/**
 * The context and the number of user messages it holds. Activities are append-only, so equal
 * counts before and after the read mean the read saw exactly that many; a message committed in
 * between makes it read again (rarely more than once). Should the count keep moving, the lower
 * one is kept: a message may then be taken as late although it was read (one extra call), but a
 * message is never taken as read when it was not.
 */
async function contextAndCount(db: Db, actor: UserActor, task: TaskRow, now: Date): Promise<ModelContext> {
  for (let attempt = 1; ; attempt++) {
    const before = await userMessageCount(db, task.id);
    const context = await runContext(db, actor, task, now);
    const after = await userMessageCount(db, task.id);
    if (before === after || attempt === 3) return { ...context, seenUserMessages: before };
  }
}

/** The task run `runId` as the loop's host; `limits` are the ones its start fixed. */
export function taskHost(runId: string, limits: RunLimits = { maxModelCalls: Infinity, maxToolCalls: Infinity }): LoopHost<OpenedRun, TaskRow> {
  return {
    telemetry: 'task-run',
    owner: { runId },
    limits,
    callRef: (n) => `run:${runId}:${n - 1}`,

    async reserve(db, ref, now, reserving): Promise<Reservation> {
      const columns = { accountId: taskRuns.accountId, userId: taskRuns.userId, modelTier: taskRuns.modelTier, status: taskRuns.status };
      if (!reserving) {
        // Bypassed (bench/trust.ts only): the same read of the run, without the reservation.
        await db.select(columns).from(taskRuns).where(eq(taskRuns.id, runId));
        return { kind: 'none' };
      }
      // The reservation is made by the statement that reads the run (one round trip for both). A run
      // stopped meanwhile reserves nothing (open answers `stopped`), so it never waits for credits it will not use.
      const reserved = sql<ReserveResult | null>`CASE WHEN ${taskRuns.status} = 'running' AND ${taskRuns.userId} IS NOT NULL THEN ${reservationSql({ ref, accountId: taskRuns.accountId, userId: taskRuns.userId, tier: taskRuns.modelTier }, now)} END`;
      const [run] = await db.select({ ...columns, reserved }).from(taskRuns).where(eq(taskRuns.id, runId));
      return run?.reserved ? reservationOf(run.reserved, ref) : { kind: 'none' };
    },

    async open(db) {
      const [row] = await db.select({ run: taskRuns, task: tasks }).from(taskRuns).innerJoin(tasks, eq(tasks.id, taskRuns.taskId)).where(eq(taskRuns.id, runId));
      if (!row) return { stopped: 'the run or its task no longer exists' };
      if (row.run.status !== 'running') return { stopped: `the run is ${row.run.status}` };
      if (row.task.status !== 'executing') return { stopped: `the task is ${row.task.status}` };
      const actor = await ownerActor(db, row.task, runId);
      if (!actor) return { stopped: 'the task’s owner can no longer act' };
      return { actor, accountId: row.task.accountId, tier: row.run.modelTier, run: row.run, task: row.task };
    },

    context: (db, opened, now) => contextAndCount(db, opened.actor, opened.task, now),

    async noteContextTaint(db, { run, task }, taint) {
      if (newTaint(run.taintSources, taint).length || (taint.length && !run.tainted)) await db.transaction((tx) => recordTaint(tx, task.id, runId, taint));
    },

    // Built inside each step (the owner's MCP skills are read from the database): a step replayed
    // from its stored result builds nothing, and a step that runs sees the skills as they are.
    tools: (db) => taskToolsForRun(db, runId),

    async begin(tx, at) {
      const locked = await lockedRun(tx, runId);
      if (!locked || locked.run.status !== 'running') return { endsRun: true };
      const { task, run } = locked;
      const [done] = await tx
        .select({ id: taskActivities.id })
        .from(taskActivities)
        .where(and(eq(taskActivities.taskId, task.id), eq(taskActivities.runId, run.id), eq(taskActivities.toolCallId, at.call.toolCallId)))
        .limit(1);
      if (done) return { endsRun: task.status !== 'executing' };
      if (task.status !== 'executing') return { endsRun: true };
      const seen = at.seenUserMessages;
      return { subject: task, runId: run.id, owner: task, late: async () => seen !== undefined && (await userMessageCount(tx, task.id)) > seen };
    },

    ownerGone: { output: { error: 'The task’s owner can no longer act; nothing was done.' }, endsRun: true },

    async noteToolTaint(tx, { subject: task }, source) {
      await recordTaint(tx, task.id, runId, [source]);
    },

    async record(tx: Tx, { subject: task }, { call, text }, outcome) {
      const items: NewActivity[] = [];
      if (text.trim()) items.push({ kind: 'assistant', content: text, runId });
      items.push({ kind: 'tool', runId, toolName: call.toolName, toolCallId: call.toolCallId, toolInput: call.input ?? {}, toolOutput: outcome.output ?? null });
      if (outcome.say) items.push({ kind: 'assistant', content: outcome.say, runId });
      await recordActivities(tx, task, items);
    },

    close: (db, end, n, { usage, modelId }) => ({ id: `end-${n}`, run: () => endRun(db, runId, end, usage, modelId) }),
  };
}
