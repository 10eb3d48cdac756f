import { and, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarEvents, users, type CalendarEventRow, type DispatchContent } from '@/db/schema';
import { logger } from '@/server/logger';
import { ingestWorkflowEvent, withdrawEventFirings } from '@/server/workflows/triggers/events';
import { providerForConnection } from './connection-provider';
import { calendarPayloadOf, type CalendarPayload, type ChangeableField } from './dispatch-payload';
import { CalendarConflict, CalendarUnreachable, type EventDraft, type RemoteEvent } from './provider';
import { storeOccurrence } from './occurrence-store';
import { isSelected, selectedIds } from './selection';
import { notOver, payload as triggerPayload, rowValues, triggerId } from './sync';
import { defaultCalendar, userCalendar, userEvent, type WriteTarget } from './write-target';

/*
 * An approved calendar dispatch executed at the user's calendar provider (spec 6, Agent tools),
 * as step 2 of a dispatch's execution (server/approvals/delivery.ts: intent, claim and send,
 * record). The intent is in the dispatch itself: the UID chosen at staging and, for a change,
 * the etag of the version read. The claim is delivery's. Here, the write:
 *   - create: the event with that UID, in the chosen calendar (or the default one);
 *   - update / cancel: the event as it was read (`If-Match` the etag); a change made meanwhile by
 *     anyone else is a CalendarConflict, and the dispatch fails with `calendar_conflict`;
 * then the written event is stored in the local copy at once (a create as made by the assistant),
 * with the workflow triggers a sync would have fired, so reads see it before the next sync.
 *
 * A retried step (its claim was found: an earlier attempt may have written) reconciles first: a
 * create looks for its UID (found: that is the event), an update compares what is there with what
 * was asked, a cancel deletes again under the same etag (already gone counts as done). What cannot
 * be told apart stays `unknown`, never written twice. A user with no calendar connected gets null:
 * the caller mails an invitation instead.
 */

export type CalendarWrite =
  | { outcome: 'accepted'; providerMessageId: string | null; detail: string }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'unknown'; reason: string };

export const CONFLICT_CODE = 'calendar_conflict';
const conflictReason = (e: Error) =>
  `${CONFLICT_CODE}: ${e.message}. Nothing was changed; read the event again (list_events) and stage the change anew if it still makes sense.`;

type Owner = { accountId: string; userId: string };

/** The event's fields as a provider draft (the attendees are the dispatch's recipients). */
function draftOf(p: CalendarPayload, attendees: string[]): EventDraft {
  return {
    title: p.title,
    start: new Date(p.start),
    end: new Date(p.end),
    location: p.location ?? null,
    description: p.description ?? null,
    attendees: attendees.map((email) => ({ email })),
    conference: p.conference ?? false,
  };
}

/** The fields an update writes: those staged as changed, plus the attendees when the person edited the recipients. */
function changesOf(p: CalendarPayload, to: string[], stored: { attendees: Array<{ email: string }> } | null): Partial<EventDraft> {
  const full = draftOf(p, to);
  const fields = new Set<ChangeableField>(p.changed ?? []);
  const before = new Set((stored?.attendees ?? []).map((a) => a.email.toLowerCase()));
  const now = new Set(to.map((a) => a.toLowerCase()));
  if (stored && (before.size !== now.size || [...now].some((a) => !before.has(a)))) fields.add('attendees');
  const out: Partial<EventDraft> = {};
  for (const f of fields) (out as Record<string, unknown>)[f] = full[f];
  return out;
}

/** Whether the event at the provider already says what the update asked (an earlier attempt got through). */
function alreadyApplied(found: RemoteEvent, changes: Partial<EventDraft>): boolean {
  const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);
  if (changes.title !== undefined && !same(found.title, changes.title)) return false;
  if (changes.location !== undefined && !same(found.location, changes.location)) return false;
  if (changes.description !== undefined && !same(found.description, changes.description)) return false;
  if (changes.start && found.start.getTime() !== changes.start.getTime()) return false;
  if (changes.end && found.end.getTime() !== changes.end.getTime()) return false;
  if (changes.attendees) {
    const want = changes.attendees.map((a) => a.email.toLowerCase()).sort();
    const have = found.attendees.map((a) => a.email.toLowerCase()).sort();
    if (JSON.stringify(want) !== JSON.stringify(have)) return false;
  }
  return true;
}

/**
 * The write of one approved calendar dispatch, or null when it is not the user's calendar's to
 * do (no calendar connected when it was staged, and none now): an invitation by email, then.
 */
export async function writeCalendarDispatch(db: Db, owner: Owner, content: DispatchContent, o: { retry?: boolean; now?: Date } = {}): Promise<CalendarWrite | null> {
  const now = o.now ?? new Date();
  const p = calendarPayloadOf(content.payload);
  if ('problem' in p) return { outcome: 'failed', reason: `The calendar was not changed: ${p.problem}` };
  const label = p.operation === 'create' ? 'created' : p.operation === 'update' ? 'changed' : 'cancelled';
  try {
    if (p.operation === 'create') {
      // Staged before UIDs were chosen at staging: it goes as it was staged, an invitation by email.
      if (!p.uid && !p.calendarId) return null;
      const target = p.calendarId ? await userCalendar(db, owner.userId, p.calendarId) : await defaultCalendar(db, owner.userId);
      if (!target) return p.calendarId ? { outcome: 'failed', reason: 'The calendar it was to be written to is no longer connected: nothing was created' } : null;
      if (target.calendar.readOnly) return { outcome: 'failed', reason: `The calendar “${target.calendar.name}” is read-only: nothing was created` };
      if (!p.uid) return { outcome: 'failed', reason: 'The event has no UID to be written under: nothing was created' };
      const provider = await providerForConnection(db, target.connection);
      const found = o.retry ? await provider.findByUid({ remoteId: target.calendar.remoteId }, p.uid) : null;
      const made = found ?? (await provider.create({ remoteId: target.calendar.remoteId }, { ...draftOf(p, content.to), uid: p.uid }));
      await keep(() => storeWritten(db, owner, target, made, { madeByAssistant: true, now }));
      return { outcome: 'accepted', providerMessageId: made.providerEventId, detail: `${label} in the calendar “${target.calendar.name}”${found ? ' (found there after a retry)' : ''}` };
    }

    // An invitation's change or cancellation (staged with no calendar connected): by email.
    if (!p.calendarId || !p.eventId) return null;
    const stored = await userEvent(db, owner.userId, p.eventId);
    const target: WriteTarget | null = stored ?? (await userCalendar(db, owner.userId, p.calendarId));
    if (!target) return { outcome: 'failed', reason: `The calendar of the event is no longer connected: nothing was ${label}` };
    const provider = await providerForConnection(db, target.connection);
    const cal = { remoteId: target.calendar.remoteId };
    if (p.occurrence) return await writeOccurrence(db, owner, p, content.to, stored, target, label, { retry: o.retry ?? false, now });

    // The provider's id of the event: the stored row's; a row a sync has dropped since is looked up by its UID.
    const current = stored?.event ?? null;
    const byUid = !current && p.uid ? await provider.findByUid(cal, p.uid) : null;
    const providerEventId = current?.providerEventId ?? byUid?.providerEventId ?? null;

    if (p.operation === 'cancel') {
      if (!providerEventId) return { outcome: 'accepted', providerMessageId: null, detail: 'the event was already gone from the calendar' };
      // A retry deletes again under the same etag: gone already (the earlier attempt got through) is a success at every provider.
      await provider.cancel(cal, { providerEventId, etag: p.etag ?? null }, p.message ?? undefined);
      await keep(() => storeCancelled(db, owner, target, providerEventId, now));
      return { outcome: 'accepted', providerMessageId: providerEventId, detail: `${label} in the calendar “${target.calendar.name}”` };
    }

    if (!providerEventId) return { outcome: 'failed', reason: `${CONFLICT_CODE}: the event was deleted from the calendar since it was read. Nothing was changed.` };
    const changes = changesOf(p, content.to, current);
    if (o.retry && p.uid) {
      const there = byUid ?? (await provider.findByUid(cal, p.uid));
      if (there && alreadyApplied(there, changes)) {
        await keep(() => storeWritten(db, owner, target, there, { madeByAssistant: false, now }));
        return { outcome: 'accepted', providerMessageId: there.providerEventId, detail: `${label} in the calendar “${target.calendar.name}” (found there after a retry)` };
      }
    }
    const updated = await provider.update(cal, { providerEventId, etag: p.etag ?? null }, changes);
    await keep(() => storeWritten(db, owner, target, updated, { madeByAssistant: false, now }));
    return { outcome: 'accepted', providerMessageId: updated.providerEventId, detail: `${label} in the calendar “${target.calendar.name}”` };
  } catch (e) {
    if (e instanceof CalendarConflict) {
      // A retried write that meets a different version may have met its own earlier attempt: it cannot tell.
      if (o.retry) return { outcome: 'unknown', reason: `An earlier attempt had begun and its result was never recorded; the event has changed since it was read (${e.message}), possibly by that attempt. It was not written again.` };
      return { outcome: 'failed', reason: conflictReason(e) };
    }
    if (e instanceof CalendarUnreachable) return { outcome: 'failed', reason: `The calendar could not be reached: ${e.reason.slice(0, 500)}. Nothing was ${label}.` };
    logger.error({ err: e }, 'calendar dispatch failed');
    return { outcome: 'failed', reason: `The calendar write failed unexpectedly: nothing was ${label}` };
  }
}

/**
 * One occurrence of a stored series changed or cancelled (payload.occurrence: its original start),
 * against the series' version read. A retry first asks the provider how the occurrence is now:
 * already cancelled, or already saying what the update asked, is done, not written again.
 */
async function writeOccurrence(
  db: Db,
  owner: Owner,
  p: CalendarPayload,
  to: string[],
  stored: (WriteTarget & { event: CalendarEventRow }) | null,
  target: WriteTarget,
  label: string,
  o: { retry: boolean; now: Date },
): Promise<CalendarWrite> {
  const series = stored?.event ?? null;
  const where = `in the calendar “${target.calendar.name}”`;
  if (!series) {
    if (p.operation === 'cancel') return { outcome: 'accepted', providerMessageId: null, detail: 'the recurring event was already gone from the calendar' };
    return { outcome: 'failed', reason: `${CONFLICT_CODE}: the recurring event was deleted from the calendar since it was read. Nothing was changed.` };
  }
  const provider = await providerForConnection(db, target.connection);
  if (!provider.updateOccurrence || !provider.cancelOccurrence) return { outcome: 'failed', reason: `This calendar keeps no recurring series to change one occurrence of: nothing was ${label}` };
  const cal = { remoteId: target.calendar.remoteId, timezone: target.calendar.timezone };
  const ref = { providerEventId: series.providerEventId, etag: p.etag ?? null, originalStart: new Date(p.occurrence!), allDay: series.allDay };
  const cancel = p.operation === 'cancel';
  const changes = cancel ? {} : changesOf(p, to, series);
  if (o.retry && provider.readOccurrence) {
    const there = await provider.readOccurrence(cal, ref);
    if (cancel && (there === 'cancelled' || there === null)) return { outcome: 'accepted', providerMessageId: null, detail: `${label} ${where} (found so after a retry)` };
    if (!cancel && there && there !== 'cancelled' && alreadyApplied(there, changes)) {
      await keep(() => storeOccurrence(db, owner, target, series, ref.originalStart, { events: [there], whole: false, occurrenceId: there.providerEventId }, { cancelled: false, now: o.now }));
      return { outcome: 'accepted', providerMessageId: there.providerEventId, detail: `${label} ${where} (found there after a retry)` };
    }
  }
  const result = cancel ? await provider.cancelOccurrence(cal, ref, p.message ?? undefined) : await provider.updateOccurrence(cal, ref, changes);
  await keep(() => storeOccurrence(db, owner, target, series, ref.originalStart, result, { cancelled: cancel, now: o.now }));
  return { outcome: 'accepted', providerMessageId: result.occurrenceId, detail: `${label} (that occurrence only) ${where}` };
}

/**
 * The local copy after a write the provider accepted: a failure here does not undo the write (nor
 * may it report one that did not happen), so it is logged and the next sync brings the event in.
 */
async function keep(store: () => Promise<void>) {
  try {
    await store();
  } catch (e) {
    logger.error({ err: e }, 'a written calendar event could not be stored; the next sync brings it in');
  }
}

async function fires(db: Db, userId: string, calendarId: string) {
  const [user] = await db.select({ preferences: users.preferences }).from(users).where(eq(users.id, userId));
  return isSelected(selectedIds(user?.preferences), calendarId);
}

/**
 * The written event in the local copy, at once, with the trigger a sync would fire for it (the
 * same trigger ids: the sync that later sees it finds nothing new and fires nothing).
 */
async function storeWritten(db: Db, owner: Owner, target: WriteTarget, event: RemoteEvent, o: { madeByAssistant: boolean; now: Date }) {
  const fire = await fires(db, owner.userId, target.calendar.id);
  await db.transaction(async (tx) => {
    const [previous] = await tx
      .select()
      .from(calendarEvents)
      .where(and(eq(calendarEvents.calendarId, target.calendar.id), eq(calendarEvents.providerEventId, event.providerEventId)))
      .for('update');
    const values = rowValues(target.calendar, event);
    const [row] = await tx
      .insert(calendarEvents)
      .values({ ...values, madeByAssistant: o.madeByAssistant })
      .onConflictDoUpdate({ target: [calendarEvents.calendarId, calendarEvents.providerEventId], set: { ...values, ...(o.madeByAssistant ? { madeByAssistant: true } : {}), updatedAt: o.now } })
      .returning();
    if (!fire || row.status === 'cancelled') return;
    const moved = !previous || previous.status === 'cancelled' || previous.start.getTime() !== row.start.getTime() || previous.end.getTime() !== row.end.getTime();
    if (!moved || (!notOver(row, o.now) && !(previous && notOver(previous, o.now)))) return;
    if (previous && previous.status !== 'cancelled') await withdrawEventFirings(tx, owner.accountId, owner.userId, triggerId(target.calendar.id, row.providerEventId, previous.start));
    await ingestWorkflowEvent(tx, { accountId: owner.accountId, userId: owner.userId, type: 'event.scheduled', id: triggerId(target.calendar.id, row.providerEventId, row.start), data: triggerPayload(target.calendar, row), at: o.now });
  });
}

/** A cancelled event out of the local copy (with its overrides), firing `event.cancelled` as a sync would. */
async function storeCancelled(db: Db, owner: Owner, target: WriteTarget, providerEventId: string, now: Date) {
  const fire = await fires(db, owner.userId, target.calendar.id);
  await db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(calendarEvents)
      .where(and(eq(calendarEvents.calendarId, target.calendar.id), or(eq(calendarEvents.providerEventId, providerEventId), eq(calendarEvents.recurrenceOf, providerEventId))))
      .for('update');
    if (!rows.length) return;
    await tx.delete(calendarEvents).where(inArray(calendarEvents.id, rows.map((r) => r.id)));
    const row = rows.find((r) => r.providerEventId === providerEventId);
    if (!fire || !row || row.status === 'cancelled' || !notOver(row, now)) return;
    await ingestWorkflowEvent(tx, { accountId: owner.accountId, userId: owner.userId, type: 'event.cancelled', id: triggerId(target.calendar.id, row.providerEventId, row.start), data: triggerPayload(target.calendar, row), at: now });
  });
}

