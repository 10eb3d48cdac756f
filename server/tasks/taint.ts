import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { taskRuns, tasks, type TaintSource, type TaskRow } from '@/db/schema';
import { recordActivities } from './activities';

/*
 * Taint (spec 5, Taint and held dispatches): a task whose runs read content from outside its
 * owner (mail, a contact's reply, a web page, a document, an MCP result, another person's message,
 * an external trigger) is tainted, on the task and on the run, with the sources that did it. From
 * then on the platform, not the model, decides: a dispatch to anyone but the owner waits for a
 * person (approvals/hold.ts), and what the task creates proposes instead of starting
 * (delegation.ts). Taint is never cleared: the content stays in the conversation every later run
 * replays, and tasks created from a tainted one inherit it.
 */

/** Sources kept per task: enough to show the person where the content came from, bounded against a flood. */
export const MAX_TAINT_SOURCES = 20;

const key = (s: TaintSource) => `${s.kind}\n${s.ref}`;

/** `a` then the sources of `b` it lacks, at most MAX_TAINT_SOURCES. */
export function mergeTaint(a: readonly TaintSource[], b: readonly TaintSource[]): TaintSource[] {
  const seen = new Set(a.map(key));
  const out = [...a];
  for (const s of b) {
    if (out.length >= MAX_TAINT_SOURCES) break;
    if (seen.has(key(s))) continue;
    seen.add(key(s));
    out.push({ kind: s.kind, ref: s.ref.slice(0, 500) });
  }
  return out;
}

/** The sources of `b` that `a` does not hold yet. */
export const newTaint = (a: readonly TaintSource[], b: readonly TaintSource[]) => {
  const seen = new Set(a.map(key));
  return b.filter((s) => !seen.has(key(s)));
};

/** A source as the person reads it. */
export function describeTaint(s: TaintSource): string {
  switch (s.kind) {
    case 'email':
      return `email from ${s.ref}`;
    case 'web':
      return `web page ${s.ref}`;
    case 'file':
      return `document ${s.ref}`;
    case 'mcp':
      return `result of the MCP tool ${s.ref}`;
    case 'message':
      return `message from ${s.ref}`;
    case 'trigger':
      return `workflow trigger ${s.ref}`;
  }
}

export const taintNote = (added: readonly TaintSource[]) =>
  `This task read content from outside you (${added.map(describeTaint).join('; ')}). ` +
  'From now on, anything it sends to someone other than you waits for your approval, whatever your autonomy settings say, and tasks it creates wait for you to approve them.';

/**
 * Records that untrusted content entered the task (and the run, when one is reading it), inside
 * the caller's transaction: the sources are merged into the task's and the run's, and a `system`
 * activity names the new ones. The task row is locked here (in the order every step takes it:
 * task, then run), so concurrent recordings never lose a source. Returns the sources that were new.
 */
export async function recordTaint(tx: Tx, taskId: string, runId: string | null, sources: readonly TaintSource[]): Promise<TaintSource[]> {
  if (!sources.length) return [];
  const [task] = await tx
    .select({ id: tasks.id, accountId: tasks.accountId, taintSources: tasks.taintSources, tainted: tasks.tainted })
    .from(tasks)
    .where(eq(tasks.id, taskId))
    .for('update');
  if (!task) return [];
  const added = newTaint(task.taintSources, sources);
  if (added.length || !task.tainted) {
    await tx
      .update(tasks)
      .set({ tainted: true, taintSources: mergeTaint(task.taintSources, sources) })
      .where(eq(tasks.id, task.id));
  }
  if (runId) {
    const [run] = await tx.select({ taintSources: taskRuns.taintSources, tainted: taskRuns.tainted }).from(taskRuns).where(eq(taskRuns.id, runId));
    if (run && (!run.tainted || newTaint(run.taintSources, sources).length)) {
      await tx.update(taskRuns).set({ tainted: true, taintSources: mergeTaint(run.taintSources, sources) }).where(eq(taskRuns.id, runId));
    }
  }
  if (added.length) await recordActivities(tx, task, [{ kind: 'system', content: taintNote(added), runId }]);
  return added;
}

/** What a task created by a tainted one starts with: the same taint (it was written from that content). */
export const inheritedTaint = (creator: Pick<TaskRow, 'tainted' | 'taintSources'>) =>
  creator.tainted ? { tainted: true, taintSources: creator.taintSources } : { tainted: false, taintSources: [] as TaintSource[] };
