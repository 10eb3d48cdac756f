import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { PerChannelPrefs } from '@/server/user-record/contracts';
import { deepMerge, defaultPreferences } from '@/server/user-record/defaults';
import { getScheduling } from '@/server/users/scheduling';
import { freeBusy } from './read';

/*
 * What the agent needs to propose a time (spec 6, free_busy): the user's busy intervals over the
 * calendars read, merged (the same service as GET /calendar/free-busy), their working hours (spec
 * 1 `schedulingPreferences.availability.workingHours`, in their own time zone; 09:00–17:00 on
 * weekdays until they set them) and how long a meeting lasts on each channel
 * (`preferences.<channel>.virtualDuration` / `inPersonDuration`, minutes).
 */

const CHANNELS = Object.keys(PerChannelPrefs.shape) as (keyof typeof PerChannelPrefs.shape)[];

export async function availability(db: Db, actor: UserActor, q: { from: Date; to: Date }) {
  const busy = await freeBusy(db, actor, q);
  const scheduling = await getScheduling(db, actor, actor.user.id);
  const prefs = deepMerge(defaultPreferences(), actor.user.preferences) as Record<string, { virtualDuration?: number; inPersonDuration?: number } | undefined>;
  const meetingLengths = Object.fromEntries(
    CHANNELS.map((c) => [c, { virtualMinutes: prefs[c]?.virtualDuration ?? 30, inPersonMinutes: prefs[c]?.inPersonDuration ?? 60 }]),
  );
  return {
    busy: busy.map((b) => ({ start: b.start.toISOString(), end: b.end.toISOString() })),
    timezone: actor.user.timezone,
    workingHours: scheduling.schedulingPreferences.availability.workingHours,
    meetingLengths,
  };
}
