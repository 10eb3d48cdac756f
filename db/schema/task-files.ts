import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { driveFiles } from './files';
import { taskActivities, tasks } from './tasks';

/**
 * The drive files a task's conversation carries, one row per (activity, file): what makes "which
 * tasks share this file" one indexed lookup instead of a scan of every activity's file_ids.
 * Written by the database itself (the task_activities_files_* triggers of its migration), so
 * every path that records an activity with files fills it, and only with files of the task's
 * owner: a task shares what its owner attached, nothing else. Read by server/tasks/hooks.ts
 * (the answer to files/access.ts).
 */
export const taskFiles = pgTable(
  'task_files',
  {
    activityId: text('activity_id')
      .notNull()
      .references(() => taskActivities.id, { onDelete: 'cascade' }),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    fileId: text('file_id')
      .notNull()
      .references(() => driveFiles.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.activityId, t.fileId] }), index('task_files_file').on(t.fileId, t.taskId)],
);

export type TaskFileRow = typeof taskFiles.$inferSelect;
