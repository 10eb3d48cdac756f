import type { TaintSource, TaskActivityRow } from '@/db/schema';
import type { SubtaskReport } from '@/server/tasks/subtasks';

/*
 * Which parts of a run's context came from outside its owner (spec 5, Taint and held
 * dispatches). Two places ask: a tool step, for the result it just added (tool-step.ts), and
 * every model call, for the whole context it is about to send (model-step.ts), so no entry
 * point is missed: a contact's reply, another person's message, what fired a workflow, a tool
 * that reads the web, a document, a mailbox or an MCP server, a subtask's report written from
 * such content, and a memory that a tainted run saved.
 */

const WEB_TOOLS = new Set(['browser_open', 'browser_read', 'browser_act']);
const FILE_TOOLS = new Set(['read_file']);
const MAIL_TOOLS = new Set(['search_mail', 'read_mail']);
/** Events other people wrote (invitations: titles, descriptions, attendees). free_busy answers only times. */
const CALENDAR_TOOLS = new Set(['list_events']);
/** What a command printed in the workspace shell, or a background job reported: whatever it read, fetched or ran. */
const SHELL_TOOLS = new Set(['shell_run', 'job_status']);

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** Where a tool's result came from, when it is outside content; null for tools that read the owner's own data or only act. */
export function toolTaint(name: string, input: unknown, output: unknown): TaintSource | null {
  const i = (input ?? {}) as Record<string, unknown>;
  const o = (output ?? {}) as Record<string, unknown>;
  if (name.startsWith('mcp__')) return { kind: 'mcp', ref: name };
  if (WEB_TOOLS.has(name)) return { kind: 'web', ref: text(o.url) ?? text(i.url) ?? 'the workspace browser' };
  if (FILE_TOOLS.has(name)) return { kind: 'file', ref: text(i.fileId) ?? 'a file' };
  if (MAIL_TOOLS.has(name)) return { kind: 'email', ref: text(i.messageId) ? `the user's mailbox (${text(i.messageId)})` : "the user's mailbox" };
  // Spec 5 names no calendar kind: invitations are other people's messages.
  if (CALENDAR_TOOLS.has(name)) return { kind: 'message', ref: "the user's calendar" };
  if (SHELL_TOOLS.has(name)) return { kind: 'web', ref: name === 'job_status' ? `workspace job ${text(i.jobId) ?? ''}`.trim() : 'the workspace shell' };
  return null;
}

/** The sender named on a contact activity's first line ("Email from Name <address>"), else its channel. */
function contactRef(a: Pick<TaskActivityRow, 'content' | 'platform'>): string {
  const first = a.content.split('\n', 1)[0] ?? '';
  const m = /^\S+ from (?:[^<]*<([^<>\s]+)>|(\S+))/.exec(first);
  return m?.[1] ?? m?.[2] ?? `someone on ${a.platform ?? 'a channel'}`;
}

/** The outside content among a task's activities. */
export function activityTaint(activities: readonly TaskActivityRow[]): TaintSource[] {
  const out: TaintSource[] = [];
  for (const a of activities) {
    if (a.kind === 'contact') out.push({ kind: a.platform === 'email' ? 'email' : 'message', ref: contactRef(a) });
    else if (a.kind === 'peer') out.push({ kind: 'message', ref: `another assistant on ${a.platform ?? 'a channel'}` });
    else if (a.kind === 'event') out.push({ kind: 'trigger', ref: a.platform ?? 'an external event' });
    else if (a.kind === 'tool' && a.toolName) {
      const source = toolTaint(a.toolName, a.toolInput, a.toolOutput);
      if (source) out.push(source);
    }
  }
  return out;
}

/** A subtask's report carries the content its runs read. */
export const subtaskTaint = (subtasks: readonly Pick<SubtaskReport, 'taintSources'>[]) => subtasks.flatMap((s) => s.taintSources);
