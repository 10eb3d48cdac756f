import type { TaskRow, TaskRunRow } from '@/db/schema';
import { byPriority } from '@/server/contacts/priority';
import { isEnded as hasEnded } from '@/server/tasks/ended';
import type { SubtaskReport } from '@/server/tasks/subtasks';
import { localTime } from './local-time';
import { asUntrustedData } from '@/server/models/untrusted';

/*
 * Why a run started, in Steward's words (not the user's): a follow-up alarm that fired with
 * nobody having replied, the subtasks the task waited on having all ended, or staged actions
 * (carts) that were approved, cancelled, rejected, executed or failed. It travels in the
 * system message, which only Steward writes and every chat template accepts; the subtasks'
 * results, which come from runs that read outside content, travel as untrusted data.
 */

/** Where the subtasks' report is found, as the system message names it. */
export const SUBTASKS_SOURCE = 'subtasks';


const quoted = (s: string) => `“${s.replace(/\s+/g, ' ').trim()}”`;

/** The lines of the system message's "Why this run started" section; empty when there is nothing to say. */
export function wakeNote(
  task: Pick<TaskRow, 'alarmStatus' | 'alarmWakeAt' | 'alarmHeadline' | 'waitingOnContacts'>,
  trigger: TaskRunRow['trigger'] | null,
  subtasks: SubtaskReport[],
  /** The user's time zone and locale, for the times the note names. */
  reader: { timezone: string; locale: string },
  carts: string[] = [],
  /** The waited-on contacts' priorities (contacts/priority.ts): whom to follow up with first. */
  priorities: ReadonlyMap<string, number> = new Map(),
): string[] {
  const lines: string[] = [];
  // Carts that reached their outcome since the task's previous run (approvals/outcomes.ts): every run until then is told.
  if (carts.length) {
    lines.push(trigger === 'cart' ? 'Actions you staged earlier have reached their outcome:' : 'Since your previous run, actions you staged have reached their outcome:');
    lines.push(...carts, 'Take the outcome into account: tell the user what matters, and continue the task from there.');
  }
  const open = subtasks.filter((s) => !hasEnded(s.status)).length;
  if (trigger === 'alarm' && task.alarmStatus === 'fired' && task.alarmWakeAt) {
    const when = `${task.alarmWakeAt.toISOString()} (${localTime(task.alarmWakeAt, reader.timezone, reader.locale, 'medium')} for the user)`;
    const what = task.alarmHeadline ? `${quoted(task.alarmHeadline)}, set for ${when}` : `set for ${when}`;
    lines.push(`Your follow-up alarm fired (${what}); nobody has replied since.`);
    if (task.waitingOnContacts.length) {
      const people = byPriority(task.waitingOnContacts, priorities)
        .map((c) => (c.name ? `${c.name} <${c.email ?? c.phone ?? 'no address'}>` : (c.email ?? c.phone ?? 'someone')))
        .join(', ');
      const ordered = [...priorities.values()].some((p) => p !== 0) ? ' (in order of the priority the user gave them: follow up with the first ones first)' : '';
      lines.push(`You are still waiting to hear from${ordered}: ${people}. Decide whether to follow up with them, tell the user, or wait again.`);
    }
    if (open) lines.push(`${open} of your subtasks ha${open === 1 ? 's' : 've'} not ended yet.`);
  } else if (trigger === 'subtasks') {
    lines.push('All the subtasks you created for this task have ended (a deleted subtask is no longer listed). Continue the task with their results.');
  }
  if (subtasks.length) {
    lines.push(`Each subtask's title, status and summary are in the message marked source="${SUBTASKS_SOURCE}"; it is data from the subtasks' runs.`);
  }
  return lines;
}

/** The subtasks as one untrusted-data message: what their runs produced is not the user's word. */
export function subtasksMessage(subtasks: SubtaskReport[]): string {
  const lines = subtasks.map((s, i) => {
    const result = s.summary ? `Summary: ${s.summary}` : s.lastMessage ? `No summary. Last message: ${s.lastMessage}` : 'No summary yet.';
    return `${i + 1}. ${quoted(s.title)} (task ${s.id}): status ${s.status}. ${result}`;
  });
  return asUntrustedData(SUBTASKS_SOURCE, lines.join('\n'));
}
