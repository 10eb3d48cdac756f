import type { TaskStatus } from '@/db/schema';

/**
 * Statuses in which a task's work is over: finished by the assistant or marked done, taken by
 * another assistant, failed, given up, archived. Every other status is open work (running,
 * waiting, scheduled, stopped or held: a process call or the system can still resume it). The one
 * definition of "open" for everything that counts or hands on a task's work (releasing an
 * assistant, assistants/open-tasks.ts).
 */
export const ENDED_STATUSES = [
  'completed',
  'done_user_marked',
  'handled_by_other',
  'error',
  'abandoned',
  'archived',
] as const satisfies readonly TaskStatus[];

export const isEnded = (status: TaskStatus): boolean => (ENDED_STATUSES as readonly TaskStatus[]).includes(status);
