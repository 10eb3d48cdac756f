import type { TaskSummary } from './types';

/** A task's status in words a person reads (spec document 2, Task statuses). */
export const TASK_STATUS: Record<TaskSummary['status'], string> = {
  pending: 'Waiting to run',
  executing: 'Working',
  awaiting_user_input: 'Needs your answer',
  awaiting_non_user_response: 'Waiting on someone else',
  alarm_set: 'Sleeping until its alarm',
  subtasks_running: 'Waiting on its subtasks',
  scheduled: 'Scheduled',
  on_hold: 'On hold',
  paused: 'Paused by the system',
  message_received: 'Message received',
  conversation: 'Conversation at rest',
  deferred_access: 'Waiting for access',
  failed_access: 'Failed: missing access',
  credits_blocked: 'Out of credits',
  completed: 'Completed',
  done_user_marked: 'Marked done by you',
  handled_by_other: 'Handled by another assistant',
  error: 'Failed',
  abandoned: 'Abandoned',
  archived: 'Archived',
};

/** Why a stopped task waits on its owner, and what sets it going again. */
export const STUCK_HINT: Partial<Record<TaskSummary['status'], string>> = {
  error: 'The last run failed. Resume it to try again.',
  failed_access: 'It could not reach a calendar or account it needs. Resume it once access is restored.',
  credits_blocked: 'A budget covering you is spent. It resumes by itself when credits are available again, or resume it to try now.',
  on_hold: 'It was stopped. Resume it to let the assistant go on.',
  paused: 'The system paused it (for example while the account was frozen). Resume it to go on.',
};

export const statusTone = (s: TaskSummary['status']): 'plain' | 'warn' | 'danger' | 'ok' | 'accent' =>
  s === 'error' || s === 'failed_access' ? 'danger' : s === 'credits_blocked' || s === 'on_hold' || s === 'paused' || s === 'awaiting_user_input' ? 'warn' : s === 'completed' || s === 'done_user_marked' ? 'ok' : s === 'executing' ? 'accent' : 'plain';

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '');
