import { and, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarEvents, users, type CalendarEventRow } from '@/db/schema';
import { ingestWorkflowEvent, withdrawEventFirings } from '@/server/workflows/triggers/events';
import { occurrenceId } from './expand';
import type { SeriesNow } from './provider';
import { isSelected, selectedIds } from './selection';
import { notOver, payload as triggerPayload, rowValues, triggerId } from './sync';
import type { WriteTarget } from './write-target';

/*
 * The local copy after one occurrence of a series was changed or cancelled at the provider
 * (server/calendars/dispatch.ts): what the provider now has is stored at once (the occurrence's
 * override or cancelled instance, and the series' master when the write changed it, as a CalDAV
 * EXDATE does), so list_events shows the series with that occurrence moved or gone before any
 * sync, and the sync that later reads the same finds nothing new. The firings: `event.scheduled`
 * for a moved occurrence, `event.cancelled` for a cancelled one, under the occurrence's own
 * trigger id (`calendar:<calendar>:<occurrence's provider id>@<start>`).
 */

type Owner = { accountId: string; userId: string };

export async function storeOccurrence(
  db: Db,
  owner: Owner,
  target: WriteTarget,
  series: CalendarEventRow,
  originalStart: Date,
  result: SeriesNow,
  o: { cancelled: boolean; now: Date },
): Promise<void> {
  const [user] = await db.select({ preferences: users.preferences }).from(users).where(eq(users.id, owner.userId));
  const fire = isSelected(selectedIds(user?.preferences), target.calendar.id);
  const calendarId = target.calendar.id;
  const ids = result.events.map((e) => e.providerEventId);
  await db.transaction(async (tx) => {
    const before = await tx
      .select()
      .from(calendarEvents)
      .where(and(eq(calendarEvents.calendarId, calendarId), or(eq(calendarEvents.recurrenceOf, series.providerEventId), ids.length ? inArray(calendarEvents.providerEventId, ids) : undefined)))
      .for('update');
    const previous = before.find((r) => r.providerEventId === result.occurrenceId) ?? null;
    for (const e of result.events) {
      const values = rowValues(target.calendar, e);
      await tx
        .insert(calendarEvents)
        .values(values)
        .onConflictDoUpdate({ target: [calendarEvents.calendarId, calendarEvents.providerEventId], set: { ...values, updatedAt: o.now } });
    }
    // A CalDAV resource is the whole series: an override no longer in it is gone (an EXDATE replaced it).
    if (result.whole) {
      const gone = before.filter((r) => r.recurrenceOf === series.providerEventId && !ids.includes(r.providerEventId)).map((r) => r.id);
      if (gone.length) await tx.delete(calendarEvents).where(inArray(calendarEvents.id, gone));
    }
    if (!fire) return;

    const length = series.end.getTime() - series.start.getTime();
    // The occurrence as it was: its override, or the one the series generated at its original start.
    const was = previous && previous.status !== 'cancelled' ? previous : { start: originalStart, end: new Date(originalStart.getTime() + length), rangeEnd: new Date(originalStart.getTime() + length) };
    const firing = (type: 'event.scheduled' | 'event.cancelled', row: Parameters<typeof triggerPayload>[1], start: Date) =>
      ingestWorkflowEvent(tx, { accountId: owner.accountId, userId: owner.userId, type, id: triggerId(calendarId, result.occurrenceId, start), data: triggerPayload(target.calendar, row), at: o.now });

    if (o.cancelled) {
      if (!notOver(was, o.now)) return;
      const row = { ...series, id: occurrenceId(series.id, originalStart.getTime()), start: was.start, end: was.end, status: 'cancelled' as const, recurrence: null, recurrenceOf: series.providerEventId };
      await firing('event.cancelled', row, was.start);
      return;
    }
    const [now] = await tx.select().from(calendarEvents).where(and(eq(calendarEvents.calendarId, calendarId), eq(calendarEvents.providerEventId, result.occurrenceId)));
    if (!now || now.status === 'cancelled') return;
    const moved = now.start.getTime() !== was.start.getTime() || now.end.getTime() !== was.end.getTime();
    if (!moved || (!notOver(now, o.now) && !notOver(was, o.now))) return;
    if (previous && previous.status !== 'cancelled') await withdrawEventFirings(tx, owner.accountId, owner.userId, triggerId(calendarId, result.occurrenceId, previous.start));
    await firing('event.scheduled', now, now.start);
  });
}
