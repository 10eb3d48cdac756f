import { and, eq, inArray } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Tx } from '@/db/client';
import { identifiers, taskRuns, tasks, users, type AutonomyExceptionRow, type HeldBecause, type TaintSource } from '@/db/schema';
import { userExceptions } from '@/server/policy/autonomy-resolve';
import { exceptionFor, normalizeRecipient } from '@/server/policy/autonomy-rules';
import type { ShownDispatchRow } from './versions';

/*
 * The platform's line (spec 5, Taint and held dispatches): in a run that read untrusted content,
 * a dispatch whose recipients are not all the owner themselves, or addresses the owner trusts
 * through a recipient exception for that action type, is never released by `auto` or
 * `time-boxed`: it waits for a person as `pending_approval`, whatever the matrix says, with
 * `heldBecause` naming the sources. A dispatch without recipients (an MCP action) is held too.
 * Locks can only make a mode stricter, and `manual` is the strictest, so nothing loosens this.
 */

/** The taint of the run that staged a cart: the run's own and its task's (a task's taint covers every later run). */
export async function cartTaint(tx: Tx, cart: { runId: string; taskId: string }): Promise<TaintSource[]> {
  const [[run], [task]] = await atOnce(tx, [
    () => tx.select({ tainted: taskRuns.tainted, sources: taskRuns.taintSources }).from(taskRuns).where(eq(taskRuns.id, cart.runId)),
    () => tx.select({ tainted: tasks.tainted, sources: tasks.taintSources }).from(tasks).where(eq(tasks.id, cart.taskId)),
  ]);
  const sources = [...(run?.tainted ? run.sources : []), ...(task?.tainted ? task.sources : [])];
  const seen = new Set<string>();
  const out = sources.filter((s) => !seen.has(`${s.kind}\n${s.ref}`) && seen.add(`${s.kind}\n${s.ref}`));
  // Tainted without a named source (never expected): still held, and the person is told so.
  return out.length || !(run?.tainted || task?.tainted) ? out : [{ kind: 'message', ref: 'unrecorded content from outside the user' }];
}

/** The owner's own addresses: their primary email and every verified email or phone. */
export async function ownAddresses(tx: Tx, userId: string): Promise<Set<string>> {
  const [[user], ids] = await atOnce(tx, [
    () => tx.select({ email: users.email }).from(users).where(eq(users.id, userId)),
    () =>
      tx
        .select({ value: identifiers.value })
        .from(identifiers)
        .where(and(eq(identifiers.userId, userId), eq(identifiers.verified, true), inArray(identifiers.type, ['email', 'phone']))),
  ]);
  return new Set([...(user ? [user.email] : []), ...ids.map((i) => i.value)].map(normalizeRecipient));
}

/**
 * Which of a submitted cart's dispatches a tainted run may not release on its own, and why;
 * empty when the run read nothing from outside.
 */
export async function taintHolds(tx: Tx, cart: { runId: string; taskId: string; userId: string }, shown: readonly ShownDispatchRow[]): Promise<Map<string, HeldBecause>> {
  const held = new Map<string, HeldBecause>();
  const sources = await cartTaint(tx, cart);
  if (!sources.length) return held;
  const own = await ownAddresses(tx, cart.userId);
  const exceptions = new Map<string, AutonomyExceptionRow[]>();
  for (const { dispatch, content } of shown) {
    const recipients = [...content.to, ...content.cc, ...content.bcc];
    if (!exceptions.has(dispatch.actionType)) exceptions.set(dispatch.actionType, await userExceptions(tx, cart.userId, dispatch.actionType));
    const trusted = (r: string) => own.has(normalizeRecipient(r)) || exceptionFor(r, exceptions.get(dispatch.actionType)!) !== null;
    if (!recipients.length || !recipients.every(trusted)) held.set(dispatch.id, { kind: 'untrusted_input', sources });
  }
  return held;
}
