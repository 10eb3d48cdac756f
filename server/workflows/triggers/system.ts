import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { skills, type TaskRow } from '@/db/schema';
import { startQueued, workflowsOf } from '../firing';
import type { TriggerDef } from './contracts';
import { fireNow, listening } from './events';
import { walk } from './walk';

/** How a task's end reads to a `system` trigger. */
function outcomeOf(status: TaskRow['status']): 'completed' | 'failed' | null {
  if (status === 'completed' || status === 'done_user_marked') return 'completed';
  if (status === 'error' || status === 'abandoned') return 'failed';
  return null;
}

/**
 * A workflow's task ended (in the transaction that ended it, through the tasks area's hook): the
 * workflow's next waiting firing may start, and other workflows' `system` triggers naming it fire.
 */
export async function workflowTaskEnded(tx: Tx, task: TaskRow): Promise<void> {
  for (const skillId of workflowsOf(task)) {
    await startQueued(tx, skillId);
    const outcome = outcomeOf(task.status);
    if (!outcome) continue;
    const [ended] = await tx.select({ id: skills.id, name: skills.name }).from(skills).where(eq(skills.id, skillId));
    if (!ended) continue;
    for (const skill of await listening(tx, task.accountId, task.userId)) {
      if (skill.id === skillId) continue;
      for (const placed of walk(skill.triggers as TriggerDef[])) {
        const t = placed.trigger;
        if (t.on !== 'system' || (t.workflow !== ended.id && t.workflow !== ended.name)) continue;
        if (t.outcome !== 'any' && t.outcome !== outcome) continue;
        await fireNow(tx, skill, placed, task.userId, task.id, { workflow: ended.name, taskId: task.id, outcome }, new Date());
      }
    }
  }
}
