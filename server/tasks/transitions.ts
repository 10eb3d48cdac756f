import type { AccessHold, SystemHold, TaskRow, TaskStatus } from '@/db/schema';
import { AppError, conflict } from '@/server/http/errors';
import { strangerOf } from './strangers';

/*
 * The one place task statuses change (spec document 2, "Task statuses"). Every service that
 * moves a task asks `plan(task, move, to)` for the columns to write; nothing else sets
 * `status`. The database repeats the alarm guarantee as a check constraint
 * (tasks_waiting_needs_alarm), so a bug here fails loudly instead of stranding a task.
 */

/** Statuses that wait for someone or something: the spec guarantees an active alarm wakes them if nobody answers. */
export const NEEDS_ALARM: readonly TaskStatus[] = ['awaiting_user_input', 'awaiting_non_user_response', 'subtasks_running', 'alarm_set'];

/** The values PUT /tasks/{taskId} accepts for `status`, and nothing else. */
export const PUT_STATUSES = ['pending', 'scheduled', 'paused', 'on_hold', 'archived'] as const satisfies readonly TaskStatus[];

/**
 * Statuses a reply, an alarm or the user's process call wakes (back to pending, then a run):
 * `deferred_access` wakes when the deferral ends (its alarm) or the user writes; a `conversation`
 * at rest when a new message arrives in it (spec 2: "a new message reopens it").
 */
const WAKEABLE: readonly TaskStatus[] = ['awaiting_user_input', 'awaiting_non_user_response', 'alarm_set', 'subtasks_running', 'deferred_access', 'conversation', 'message_received'];

/**
 * Stopped, at rest, or failed: the user's process call (a new message) reopens them. A task in
 * error is included (spec 4: "a later process call works once a model is set"), and so is one
 * blocked for credits: the process call tries again, and a budget that gets room again (top-up,
 * raised limit, new period) resumes it the same way (server/budgets/resume.ts).
 */
const RESUMABLE: readonly TaskStatus[] = ['on_hold', 'message_received', 'conversation', 'error', 'abandoned', 'credits_blocked', 'failed_access', 'handled_by_other'];

/** Running or open: what stop can stop. */
const OPEN: readonly TaskStatus[] = [
  'pending',
  'executing',
  'awaiting_user_input',
  'awaiting_non_user_response',
  'alarm_set',
  'subtasks_running',
  'scheduled',
  'paused',
  'message_received',
  'conversation',
  'deferred_access',
  'failed_access',
  'credits_blocked',
];

const ALL = '*' as const;
type From = readonly TaskStatus[] | typeof ALL;

/**
 * Each move: the statuses it may leave from, and the statuses it may lead to.
 * `create` leaves from no status (checked by its own service); the run moves (`start`,
 * `wait`, `finish`, `fail`, `schedule_due`) are the runtime's and are listed so it plugs in here.
 */
export const MOVES = {
  create: { from: [], to: ['pending', 'scheduled'] },
  /** POST process on a pending task: a run is queued and the task executes. */
  start: { from: ['pending'], to: ['executing'] },
  /** A reply arrives, the alarm fires, or the user sends process. */
  wake: { from: WAKEABLE, to: ['pending'] },
  /** POST process on a stopped task or a thread at rest. */
  resume: { from: RESUMABLE, to: ['pending'] },
  /**
   * The run needs a person or a time. A run that ends waiting for the user rests instead in
   * `deferred_access` / `failed_access` when the access it asked for was put off / refused, or in
   * `conversation` when the task is a conversation (plan() decides, restingStatus()).
   */
  wait: {
    from: ['executing'],
    to: ['awaiting_user_input', 'awaiting_non_user_response', 'alarm_set', 'scheduled', 'subtasks_running', 'deferred_access', 'failed_access', 'conversation'],
  },
  finish: { from: ['executing'], to: ['completed'] },
  fail: { from: ['executing'], to: ['error'] },
  /**
   * A calendar the task waits for (server/calendars/access.ts) stays revoked or failing for 7
   * days: the deferral becomes a failure the user is told of.
   */
  access_lost: { from: ['deferred_access'], to: ['failed_access'] },
  /** The user connects a calendar (or a failing one syncs again): the tasks that waited for it run again. */
  access_granted: { from: ['deferred_access', 'failed_access'], to: ['pending'] },
  /**
   * The system holds a task it must not run now (spec 2: paused, "Held by the system"): a run is
   * about to start for an owner who is suspended or deactivated (agent/runtime/start-run.ts). The
   * reason is kept in `systemHold`; a user's own pause (PUT) has none.
   */
  hold: { from: ['pending', 'executing'], to: ['paused'] },
  /** The hold lifted (the owner is active again): the task runs again (tasks/holds.ts). */
  release: { from: ['paused'], to: ['pending'] },
  /**
   * A message reached a conversation at rest and no run could start for it (the account's kill
   * switch is engaged): the thread rests with its message unread until the system reopens it.
   */
  message_arrived: { from: ['conversation'], to: ['message_received'] },
  /** A failure nobody took up for STEWARD_TASK_ABANDON_DAYS: given up, and the owner is told (tasks/holds.ts). */
  abandon: { from: ['error', 'failed_access'], to: ['abandoned'] },
  /** A budget covering the owner is spent: the run stops and the task waits for credits (resume). */
  block_credits: { from: ['executing'], to: ['credits_blocked'] },
  schedule_due: { from: ['scheduled'], to: ['executing'] },
  /** Owner only: any running or open task. */
  stop: { from: OPEN, to: ['on_hold'] },
  /** Owner only. */
  mark_done: { from: ALL, to: ['done_user_marked'] },
  /** Owner only: the assistant wakes and asks how to proceed. */
  mark_not_done: { from: ['completed', 'done_user_marked'], to: ['pending'] },
  /** PUT with `handledBy`: another assistant or a person took the thread; any open task. */
  hand_off: { from: OPEN, to: ['handled_by_other'] },
  /** PUT with a status: from any, to only the accepted five. */
  put_status: { from: ALL, to: PUT_STATUSES },
} as const satisfies Record<string, { from: From; to: readonly TaskStatus[] }>;

export type Move = keyof typeof MOVES;

/** Whether `move` may take a task from `from` to `to`. */
export function allowed(from: TaskStatus, move: Move, to: TaskStatus): boolean {
  const m = MOVES[move] as { from: From; to: readonly TaskStatus[] };
  return (m.from === ALL || m.from.includes(from)) && m.to.includes(to);
}

/** 409 naming the current status: the client sees why, and what the task is now. */
export const refused = (from: TaskStatus, move: Move | 'process') =>
  conflict(`The task is ${from}: ${move.replace(/_/g, '-')} is not possible from that status`, { taskStatus: from }, 'invalid_transition');

export type Alarm = { wakeAt: Date; headline: string | null };

/** The columns a move writes: status, and what the status implies for the alarm, completion and review. */
export type TaskChange = Pick<Partial<TaskRow>, 'status' | 'alarmStatus' | 'alarmWakeAt' | 'alarmHeadline' | 'completedAt' | 'readyForReview' | 'scheduledFor' | 'accessHold' | 'systemHold'>;

/** What plan() reads of a task: its status and alarm, and what decides where a run that waits for the user rests. */
export type Planned = Pick<TaskRow, 'status' | 'alarmStatus' | 'alarmWakeAt'> & Partial<Pick<TaskRow, 'accessHold' | 'tags' | 'systemHold'>>;

/**
 * Where a run that ends waiting for the user rests (spec 2, Task statuses): after the user put
 * off the access it asked for (a deferred handoff) in `deferred_access` until the deferral ends
 * (its alarm) or the user writes; after they refused it or let it expire in `failed_access` until
 * they act; a conversation with someone (tasks/strangers.ts) in `conversation` until a new
 * message reopens it. Otherwise it awaits the user, as asked.
 */
function restingStatus(task: Planned, alarm: Alarm | undefined, now: Date): { to: TaskStatus; alarm: Alarm | undefined } | null {
  const held: AccessHold | null | undefined = task.accessHold;
  // A calendar hold is the tool's own move (server/calendars/access.ts), not a handoff's outcome to rest on.
  const hold = held?.kind === 'calendar' ? null : held;
  if (hold?.outcome === 'deferred' && hold.until && new Date(hold.until) > now) {
    return { to: 'deferred_access', alarm: { wakeAt: new Date(hold.until), headline: 'Ask again for the access the user deferred' } };
  }
  if (hold && hold.outcome !== 'deferred') return { to: 'failed_access', alarm: undefined };
  if (task.tags && strangerOf({ tags: task.tags })) return { to: 'conversation', alarm: undefined };
  return null;
}

/**
 * Plans one move. Throws 409 when the move is not allowed from the task's status. Entering a
 * waiting status needs an active alarm (the task's own, or `alarm`), else it is refused: the
 * spec guarantees nobody waits forever. Leaving a waiting status cancels a still-set alarm;
 * finishing stamps completedAt, reopening clears it; readyForReview lives only while the task
 * awaits the user.
 */
export function plan(task: Planned, move: Move, to: TaskStatus, alarm?: Alarm, now = new Date(), hold?: SystemHold): TaskChange {
  if (move === 'wait' && to === 'awaiting_user_input') {
    const rest = restingStatus(task, alarm, now);
    if (rest) ({ to, alarm } = rest);
  }
  if (!allowed(task.status, move, to)) throw refused(task.status, move);
  const change: TaskChange = { status: to };
  // Only `hold` sets a reason, and it must name one; every other move (a user's PUT paused too) clears it.
  if (move === 'hold') {
    if (!hold) throw new Error('plan: hold needs a reason');
    change.systemHold = hold;
  } else if (task.systemHold) change.systemHold = null;
  // The access outcome is read once: by the run that was woken to read it.
  if (task.accessHold && task.status === 'executing') change.accessHold = null;
  if (alarm) Object.assign(change, { alarmStatus: 'set', alarmWakeAt: alarm.wakeAt, alarmHeadline: alarm.headline });
  if (NEEDS_ALARM.includes(to)) {
    const active = alarm ? alarm.wakeAt > now : task.alarmStatus === 'set' && task.alarmWakeAt !== null;
    if (!active) throw new AppError(409, 'alarm_required', `A task cannot become ${to} without an active alarm`, { taskStatus: task.status });
  } else if (task.alarmStatus === 'set' && !alarm) {
    // The alarm firing marks itself `fired` before it wakes the task; any other way out cancels it.
    change.alarmStatus = 'cancelled';
  }
  if (to === 'completed' || to === 'done_user_marked') change.completedAt = now;
  else if (move === 'mark_not_done') change.completedAt = null;
  if (to !== 'awaiting_user_input') change.readyForReview = false;
  return change;
}
