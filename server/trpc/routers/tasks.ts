import { z } from 'zod';
import { listActivities } from '@/server/tasks/activities';
import { approveTask, declineTask } from '@/server/tasks/approval';
import { ApprovalBody, CreateTaskBody, FeedbackBody, ListActivitiesQuery, ListTasksQuery, ProcessTaskBody, TaskParams } from '@/server/tasks/contracts';
import { leaveFeedback } from '@/server/tasks/feedback';
import { markDone, markNotDone, stopTask } from '@/server/tasks/lifecycle';
import { processTask } from '@/server/tasks/process';
import { searchOwnTasks } from '@/server/tasks/search';
import { createTask, getTask, listTasks } from '@/server/tasks/service';
import { listSubtasks } from '@/server/tasks/subtask-list';
import { getTaskUsage } from '@/server/tasks/usage';
import { liveUserProcedure, router, userProcedure } from '../init';

/** GET /tasks' query, plus the hosted list's search box (title or description). */
export const TaskListInput = ListTasksQuery.omit({ ownerEmail: true }).extend({ search: z.string().trim().max(200).optional() });

/**
 * The tasks pages: the same services as /api/tasks with the session's user. Creating, running
 * (process) and approving are stopped by the account kill switch, as their REST endpoints are.
 */
export const tasksRouter = router({
  list: userProcedure.input(TaskListInput.prefault({})).query(({ ctx, input: { search, ...q } }) => (search ? searchOwnTasks(ctx.db, ctx.actor, { ...q, search }) : listTasks(ctx.db, ctx.actor, q))),
  get: userProcedure.input(TaskParams).query(({ ctx, input }) => getTask(ctx.db, ctx.actor, input.taskId)),
  activities: userProcedure.input(TaskParams.extend(ListActivitiesQuery.shape)).query(({ ctx, input: { taskId, ...q } }) => listActivities(ctx.db, ctx.actor, taskId, q)),
  subtasks: userProcedure.input(TaskParams).query(({ ctx, input }) => listSubtasks(ctx.db, ctx.actor, input.taskId)),
  usage: userProcedure.input(TaskParams).query(({ ctx, input }) => getTaskUsage(ctx.db, ctx.actor, input.taskId)),
  create: liveUserProcedure.input(CreateTaskBody).mutation(({ ctx, input }) => createTask(ctx.db, ctx.actor, input)),
  /** A message (an answer to the assistant's question, or new instructions) and files: the task runs again. */
  process: liveUserProcedure.input(TaskParams.extend(ProcessTaskBody.shape)).mutation(({ ctx, input: { taskId, ...body } }) => processTask(ctx.db, ctx.actor, taskId, body)),
  stop: userProcedure.input(TaskParams).mutation(({ ctx, input }) => stopTask(ctx.db, ctx.actor, input.taskId)),
  markDone: userProcedure.input(TaskParams).mutation(({ ctx, input }) => markDone(ctx.db, ctx.actor, input.taskId)),
  markNotDone: userProcedure.input(TaskParams).mutation(({ ctx, input }) => markNotDone(ctx.db, ctx.actor, input.taskId)),
  feedback: userProcedure.input(TaskParams.extend(FeedbackBody.shape)).mutation(({ ctx, input: { taskId, ...body } }) => leaveFeedback(ctx.db, ctx.actor, taskId, body)),
  approve: liveUserProcedure.input(TaskParams.extend(ApprovalBody.shape)).mutation(({ ctx, input: { taskId, ...body } }) => approveTask(ctx.db, ctx.actor, taskId, body)),
  decline: userProcedure.input(TaskParams.extend(ApprovalBody.shape)).mutation(({ ctx, input: { taskId, ...body } }) => declineTask(ctx.db, ctx.actor, taskId, body)),
});
