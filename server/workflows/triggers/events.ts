import { and, eq, isNull, like, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { skills, workflowTriggerState, type SkillRow } from '@/db/schema';
import { fire } from '../firing';
import { durationMs, type TriggerDef } from './contracts';
import { compoundPart } from './compound';
import { walk, type Placed } from './walk';

export type WorkflowEvent = {
  accountId: string;
  /** The user the event is about: their workflows and the account's app-wide ones listen. */
  userId: string;
  type: 'event.scheduled' | 'event.cancelled' | 'email.received';
  /** A stable id of the event (calendar event id, Message-ID): a repeated event fires once. */
  id: string;
  data: Record<string, unknown>;
  at?: Date;
};

/** The workflows listening for a user's events: their own and the account's app-wide ones. */
export const listening = (tx: Tx, accountId: string, userId: string) =>
  tx
    .select()
    .from(skills)
    .where(and(eq(skills.accountId, accountId), eq(skills.kind, 'workflow'), eq(skills.enabled, true), or(eq(skills.ownerUserId, userId), isNull(skills.ownerUserId))));

function filterMatches(filter: { from?: string; subject?: string; title?: string } | undefined, data: Record<string, unknown>): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, want]) => want === undefined || String(data[k] ?? '').toLowerCase().includes(String(want).toLowerCase()));
}

/** A firing later (delayOffset, a time relative to the event): a due row the scheduler fires. */
async function later(tx: Tx, skill: SkillRow, placed: Placed, ev: WorkflowEvent, dueAt: Date): Promise<void> {
  await tx
    .insert(workflowTriggerState)
    .values({ skillId: skill.id, accountId: skill.accountId, triggerKey: `d:${placed.key}:${ev.id}`, nextAt: dueAt, state: { userId: ev.userId, kind: placed.trigger.on, eventType: ev.type, eventId: ev.id, payload: ev.data } })
    .onConflictDoUpdate({ target: [workflowTriggerState.skillId, workflowTriggerState.triggerKey], set: { nextAt: dueAt, state: { userId: ev.userId, kind: placed.trigger.on, eventType: ev.type, eventId: ev.id, payload: ev.data } } });
}

/** Fires now: as itself, or as a part of its compound. */
export async function fireNow(tx: Tx, skill: SkillRow, placed: Placed, userId: string, ref: string, payload: Record<string, unknown>, at: Date): Promise<void> {
  if (placed.parent) return compoundPart(tx, skill, placed, userId, ref, at);
  await fire(tx, { skillId: skill.id, userId, triggerKind: placed.trigger.on, eventKey: `${placed.trigger.on}:${placed.key}:${ref}`, payload, at });
}

/**
 * A calendar event moved to another time (server/calendars/sync.ts): the firings scheduled
 * relative to its old time (`timestamp` and delayed `webhook` triggers) are withdrawn, as a
 * cancellation withdraws them; the event at its new time schedules its own.
 */
export async function withdrawEventFirings(tx: Tx, accountId: string, userId: string, eventId: string): Promise<void> {
  for (const skill of await listening(tx, accountId, userId)) {
    await tx.delete(workflowTriggerState).where(and(eq(workflowTriggerState.skillId, skill.id), like(workflowTriggerState.triggerKey, `d:%:${eventId}`)));
  }
}

/**
 * A calendar or email event of a user reaches every workflow listening (spec: webhook triggers,
 * `timestamp` triggers relative to the event, `inactivity` windows, compound parts). A cancelled
 * calendar event also withdraws the firings still scheduled for it.
 */
export async function ingestWorkflowEvent(tx: Tx, ev: WorkflowEvent): Promise<void> {
  const at = ev.at ?? new Date();
  for (const skill of await listening(tx, ev.accountId, ev.userId)) {
    if (ev.type === 'event.cancelled') {
      await tx.delete(workflowTriggerState).where(and(eq(workflowTriggerState.skillId, skill.id), like(workflowTriggerState.triggerKey, `d:%:${ev.id}`)));
    }
    for (const placed of walk(skill.triggers as TriggerDef[])) {
      const t = placed.trigger;
      if (t.on === 'webhook' && t.event === ev.type && filterMatches(t.filter, ev.data)) {
        const delay = t.delayOffset !== undefined ? durationMs(t.delayOffset) : 0;
        if (delay > 0) await later(tx, skill, placed, ev, new Date(at.getTime() + delay));
        else await fireNow(tx, skill, placed, ev.userId, ev.id, { event: ev.type, ...ev.data }, at);
      } else if (t.on === 'timestamp' && t.event === ev.type && filterMatches(t.filter, ev.data)) {
        const base = Date.parse(String(ev.data[t.field] ?? ''));
        if (Number.isNaN(base)) continue;
        const due = new Date(base + durationMs(t.offset));
        if (due.getTime() > at.getTime()) await later(tx, skill, placed, ev, due);
      } else if (t.on === 'inactivity' && t.event === ev.type && filterMatches(t.filter, ev.data)) {
        // The expected event happened: the window starts again from now.
        await tx
          .update(workflowTriggerState)
          .set({ nextAt: new Date(at.getTime() + durationMs(t.within)), state: { windowStart: at.toISOString() } })
          .where(and(eq(workflowTriggerState.skillId, skill.id), eq(workflowTriggerState.triggerKey, placed.key)));
      }
    }
  }
}
