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
  conversation: 'Waiting for your next message',
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

/** A model tier as people read it (spec 2: the console labels `medium` Standard). */
export const TIER: Record<string, string> = { low: 'Light', medium: 'Standard', high: 'Advanced', ultra: 'Maximum' };

/** An approval mode in words. */
export const APPROVAL_MODE: Record<string, string> = { auto: 'Sends without asking', 'time-boxed': 'Sends after a review window unless you stop it', manual: 'Asks you before sending' };

/** What the assistant did, in words, by tool (the tool's own name stays under "details"). */
export const TOOL_WORDS: Record<string, string> = {
  ask_user: 'asked you',
  send_email: 'drafted an email',
  send_message: 'drafted a message',
  search_mail: 'searched your mail',
  read_mail: 'read an email',
  read_file: 'read a file',
  browser_open: 'opened a web page',
  browser_read: 'read a web page',
  browser_act: 'acted on a web page',
  request_handoff: 'asked you to take over in the browser',
  save_memory: 'remembered something',
  search_memories: 'looked through what it remembers',
  update_memory: 'updated a memory',
  forget_memory: 'forgot a memory',
  save_contact: 'saved a contact',
  set_alarm: 'set a reminder',
  create_task: 'started a task',
  create_subtask: 'started a subtask',
  place_call: 'prepared a phone call',
  update_plan: 'updated its plan',
  web_search: 'searched the web',
};
export const toolWords = (name: string) => TOOL_WORDS[name] ?? 'used a tool';

/**
 * @deprecated A date in the server's zone and a fixed locale. Use <Time value={…} /> (app/_ui/time.tsx),
 * which writes it in the person's own timezone and locale; kept while the console and memories pages still call it.
 */
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '');
