import type { ModelMessage } from 'ai';
import { and, asc, eq, lte, or, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskActivities, taskModelCalls, taskRuns, tasks, traces } from '@/db/schema';
import { recordTrace } from '@/server/prompts/traces';
import type { TraceInput } from '@/server/prompts/traces-contracts';
import { taskMessage } from './task-conversation';
import { conversationMessages } from './conversation';

type TraceMessage = NonNullable<TraceInput['messages']>[number];

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The SDK's messages in the trace format (OpenAI-like): tool calls on the assistant message, one tool message per result. */
function traceMessages(messages: ModelMessage[]): TraceMessage[] {
  const out: TraceMessage[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      for (const part of m.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output as { type: string; value?: unknown };
        out.push({ role: 'tool', content: textOf(output.value ?? ''), tool_call_id: part.toolCallId });
      }
    } else if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
    } else {
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      const calls = m.content.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.toolCallId, name: p.toolName, args: p.input }] : []));
      out.push({ role: m.role, content: text, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  return out;
}

/**
 * Records an ended run as a trace of the tenant prompt API (the tenant is the task's account), so
 * runs show up under /tenants/{accountId}/traces beside the tenant's own: the conversation as the
 * model read it when the run ended (task, messages, tool calls and results), the tokens, the
 * credits it cost, model, tier and duration. The trace's id is the run's, so the step that calls
 * this can be retried without a second trace. A run that never started or has not ended records
 * nothing. The system message and memories are left out on purpose: they are rebuilt per call
 * and the memories are the user's, not the tenant API's to list.
 */
export async function recordRunTrace(db: Db, runId: string): Promise<{ traceId: string | null }> {
  const [row] = await db.select({ run: taskRuns, task: tasks }).from(taskRuns).innerJoin(tasks, eq(tasks.id, taskRuns.taskId)).where(eq(taskRuns.id, runId));
  if (!row || !row.run.startedAt || !row.run.endedAt) return { traceId: null };
  const { run, task } = row;
  const [startedAt, endedAt] = [row.run.startedAt, row.run.endedAt];
  const [existing] = await db.select({ id: traces.id }).from(traces).where(eq(traces.id, run.id));
  if (existing) return { traceId: existing.id };

  const [activities, [priced]] = await Promise.all([
    db
      .select()
      .from(taskActivities)
            // The run's own activities, and what came before it ended (its closing activity is stamped by
      // the database clock, which may read later than the run's endedAt).
      .where(and(eq(taskActivities.taskId, task.id), or(eq(taskActivities.runId, run.id), lte(taskActivities.createdAt, endedAt))))
      .orderBy(asc(taskActivities.createdAt), asc(taskActivities.id)),
    db
      .select({ credits: sql<number>`coalesce(sum(${taskModelCalls.chargedCredits}), 0)`.mapWith(Number), calls: sql<number>`count(*)`.mapWith(Number) })
      .from(taskModelCalls)
      .where(eq(taskModelCalls.runId, run.id)),
  ]);
  const ownActivities = activities.filter((a) => a.runId === run.id);
  const lastAnswer = ownActivities.filter((a) => a.kind === 'assistant').at(-1)?.content ?? null;
  const toolNames = [...new Set(ownActivities.flatMap((a) => (a.kind === 'tool' && a.toolName ? [a.toolName] : [])))];
  // The provider's input count includes cached tokens; Steward keeps the three apart (usage.ts).
  const inputTokens = run.inputTokens + run.cacheReadTokens + run.cacheCreationTokens;

  return recordTrace(db, run.accountId, {
    traceId: run.id,
    promptName: 'task-run',
    status: run.status === 'finished' ? 'completed' : run.status,
    tags: ['task-run', `tier:${run.modelTier}`, `trigger:${run.trigger}`],
    inputTokens,
    outputTokens: run.outputTokens,
    // Credits, not money: the price table is in credits (server/models/prices.ts).
    cost: Math.round(priced.credits * 1e6) / 1e6,
    costCurrency: 'CRD',
    duration: Math.max(0, endedAt.getTime() - startedAt.getTime()),
    modelConfig: { model: run.model ?? 'none', provider: 'openai-compatible', tier: run.modelTier },
    messages: traceMessages([{ role: 'user', content: taskMessage(task) }, ...conversationMessages(activities)]),
    output: { message: lastAnswer, success: run.status === 'finished' },
    tools: toolNames.map((name) => ({ name })),
    metadata: {
      taskId: task.id,
      runId: run.id,
      trigger: run.trigger,
      tier: run.modelTier,
      error: run.error,
      modelCalls: priced.calls,
      cacheReadTokens: run.cacheReadTokens,
      cacheCreationTokens: run.cacheCreationTokens,
      toolCalls: ownActivities.filter((a) => a.kind === 'tool').length,
    },
    timestamp: startedAt.getTime(),
  });
}
