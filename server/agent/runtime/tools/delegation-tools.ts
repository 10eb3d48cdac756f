import { z } from 'zod';
import { modelTiers } from '@/db/schema';
import { createAgentTask, createSubtasks as delegateSubtasks, MAX_SUBTASKS, SUBTASKS_FOLLOW_UP_MS } from '@/server/tasks/delegation';
import { defineTool } from './registry';

/*
 * Handing work on (spec: create_task, create_subtasks): thin adapters over the tasks area's
 * delegation service, called as the task's owner.
 */

const Title = z.string().trim().min(1, 'is required').max(500);
const Description = z.string().max(100_000);

export const createTask = defineTool({
  name: 'create_task',
  description:
    'Create a separate task for the user, for work that stands on its own (the user tracks it apart from this one; this task does not wait for it). ' +
    'It starts from its title and description only, so put everything it needs in them. ' +
    'needsApproval: true holds it until the user approves it (use it for work the user did not ask for). ' +
    'scheduledFor (ISO 8601, future) starts it then instead of now. To split this task into parts and continue once they are done, use create_subtasks instead.',
  input: z.object({
    title: Title,
    description: Description.optional(),
    needsApproval: z.boolean().optional(),
    scheduledFor: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' }).optional(),
    modelTier: z.enum(modelTiers, { message: `must be one of ${modelTiers.join(', ')}` }).optional(),
  }),
  handler: async (db, actor, task, input, run) => {
    const created = await createAgentTask(
      db,
      actor,
      task,
      { ...input, scheduledFor: input.scheduledFor ? new Date(input.scheduledFor) : undefined },
      run.now,
    );
    return {
      output: {
        taskId: created.id,
        status: created.status,
        proposalStatus: created.proposalStatus,
        ...(created.scheduledFor ? { scheduledFor: created.scheduledFor.toISOString() } : {}),
      },
    };
  },
});

export const createSubtasks = defineTool({
  name: 'create_subtasks',
  description:
    `Split this task into parts that run on their own, at the same time (1 to ${MAX_SUBTASKS}). Each subtask starts from its title and description only, so make each self-contained. ` +
    `The run ends and this task waits; once every subtask has ended you are woken with each one's status and summary, ` +
    `or after ${SUBTASKS_FOLLOW_UP_MS / 3_600_000} hours if some are still running. Use it for independent parts of larger work; for work the user should track apart, use create_task.`,
  input: z.object({
    subtasks: z
      .array(z.object({ title: Title, description: Description }))
      .min(1, 'must hold at least one subtask')
      .max(MAX_SUBTASKS, `must hold at most ${MAX_SUBTASKS} subtasks`),
  }),
  handler: async (db, actor, task, input, run) => {
    const { parent, children, notCreated, treeMax } = await delegateSubtasks(db, actor, task, input.subtasks, run.now);
    const proposed = children.some((c) => c.proposalStatus === 'pending_user_approval');
    return {
      output: {
        subtasks: children.map((c) => ({ taskId: c.id, title: c.title, status: c.status, proposalStatus: c.proposalStatus })),
        followUpAt: parent.alarmWakeAt?.toISOString() ?? null,
        ...(proposed ? { note: 'This task read content from outside the user, so its subtasks wait for the user to approve them before they run.' } : {}),
        ...(notCreated
          ? { notCreated, limit: `Only ${children.length} of ${children.length + notCreated} were created: a task tree holds at most ${treeMax} tasks. Do the rest in this task.` }
          : {}),
      },
      endsRun: true,
    };
  },
});
