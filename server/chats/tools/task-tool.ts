import { z } from 'zod';
import { modelTiers } from '@/db/schema';
import { invalidFields } from '@/server/http/errors';
import { queueRun } from '@/server/tasks/runs';
import { insertTask } from '@/server/tasks/service';
import { chatTaint } from '../taint';
import { defineChatTool } from './registry';

/*
 * create_task from a chat turn (spec 4, Tools): a task of the chat's owner and assistant,
 * `createdBy: agent`, through the tasks area's insertTask like every other task (roster, tier).
 * The user is speaking in the chat, so the task runs at once unless the model holds it for
 * approval (needsApproval) or schedules it. Its id goes into the turn's `message` event.
 */

export const chatCreateTask = defineChatTool({
  name: 'create_task',
  description:
    'Open a task for work that takes more than this reply: it runs on its own (durably, with the task tools) and the user tracks it in their tasks. ' +
    'It starts from its title and description only, so put everything it needs in them. ' +
    'needsApproval: true holds it until the user approves it (use it for work the user did not ask for). scheduledFor (ISO 8601, future) starts it then instead of now.',
  input: z.object({
    title: z.string().trim().min(1, 'is required').max(500),
    description: z.string().max(100_000).optional(),
    needsApproval: z.boolean().optional(),
    scheduledFor: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' }).optional(),
    modelTier: z.enum(modelTiers, { message: `must be one of ${modelTiers.join(', ')}` }).optional(),
  }),
  handler: async (db, actor, chat, input, run) => {
    if (input.scheduledFor && new Date(input.scheduledFor).getTime() <= run.now.getTime()) {
      throw invalidFields([{ field: 'scheduledFor', problem: 'must be in the future' }]);
    }
    // A turn that read someone else's words only proposes: the request may be theirs (taint.ts).
    const taint = await chatTaint(db, actor, chat);
    const needsApproval = input.needsApproval === true || taint.length > 0;
    const task = await insertTask(
      db,
      actor,
      {
        title: input.title,
        description: input.description,
        assistant: chat.assistantId,
        status: input.scheduledFor ? 'scheduled' : 'pending',
        scheduledFor: input.scheduledFor,
        modelTier: input.modelTier,
        taintSources: taint.length ? taint : undefined,
      },
      { createdBy: 'agent', needsApproval, parentTaskId: null },
    );
    // Queued in pending: the run's first step starts it, once this step's transaction commits.
    if (!needsApproval && task.status === 'pending') await queueRun(db, task, 'process');
    return {
      output: { taskId: task.id, status: task.status, proposalStatus: task.proposalStatus, ...(task.scheduledFor ? { scheduledFor: task.scheduledFor.toISOString() } : {}) },
      taskId: task.id,
    };
  },
});
