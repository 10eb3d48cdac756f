import { z } from 'zod';
import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { invalidFields } from '@/server/http/errors';
import { updateProfile } from '@/server/users/profile';
import { listUserCalendars } from './read';

/*
 * Choosing which calendars the assistant reads (spec 1, `preferences.calendars.read`), as the
 * hosted Calendar page does it: the ids must be the acting user's own calendars, at least one is
 * read (an empty list means "every calendar", so "none" cannot be written: disconnecting is how
 * a calendar stops being read), and choosing every calendar stores the empty list, so a calendar
 * the provider adds later is read too. Written through PATCH /profile's service, whose preferences
 * hook (./push-unread.ts) stops the push of a calendar no longer read at once; one chosen again
 * gets its channel at the next periodic sync, which makes every channel (its events are kept in
 * sync meanwhile, as every calendar's are).
 */

export const ChooseCalendarsBody = z.object({ calendarIds: z.array(z.string().min(1).max(100)).max(500) });

export async function chooseCalendars(db: Db, actor: UserActor, input: z.infer<typeof ChooseCalendarsBody>) {
  const all = await listUserCalendars(db, actor);
  const known = new Set(all.map((c) => c.id));
  const unknown = input.calendarIds.filter((id) => !known.has(id));
  if (unknown.length) throw invalidFields([{ field: 'calendarIds', problem: `not one of your calendars: ${unknown.join(', ')}` }]);
  const chosen = [...new Set(input.calendarIds)];
  if (!chosen.length) throw invalidFields([{ field: 'calendarIds', problem: 'choose at least one calendar (disconnect a calendar to stop reading it)' }]);
  const read = chosen.length === all.length ? [] : all.filter((c) => chosen.includes(c.id)).map((c) => c.id);
  // The profile's own transaction drops the unread calendars' push channels with the choice (./push-unread.ts).
  await updateProfile(db, actor, { preferences: { calendars: { read } } });
  return { ok: true as const, calendars: all.map((c) => ({ ...c, selected: read.length === 0 || read.includes(c.id) })) };
}
