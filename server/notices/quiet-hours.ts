/*
 * Quiet hours (issue: notices that find the user): a notice that is not urgent waits for the
 * user's working hours (their scheduling preferences, in their timezone) when they asked for it
 * (`preferences.notifications.quietHours`, on by default). No working hours saved: no quiet hours.
 */

export type WorkingHours = Record<string, Array<{ start: string; end: string }>>;

const DAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;
const MINUTE = 60_000;

/** The wall-clock day and minute of `at` in `timezone` (the user's). */
function localClock(at: Date, timezone: string): { day: (typeof DAYS)[number]; minute: number } {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  } catch {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  }
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const day = get('weekday').slice(0, 2).toUpperCase() as (typeof DAYS)[number];
  return { day, minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

const toMinute = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Whether `at` falls inside a working-hours slot. */
export function inWorkingHours(hours: WorkingHours, timezone: string, at: Date): boolean {
  const { day, minute } = localClock(at, timezone);
  return (hours[day] ?? []).some((s) => minute >= toMinute(s.start) && minute < toMinute(s.end));
}

/**
 * When a non-urgent notice may go: now inside working hours, else the start of the next slot
 * (found minute by minute over at most a week: cheap, and right across daylight-saving changes).
 * No slot at all: now.
 */
export function nextWorkingTime(hours: WorkingHours, timezone: string, now: Date): Date {
  if (!Object.values(hours).some((slots) => slots.length)) return now;
  if (inWorkingHours(hours, timezone, now)) return now;
  const start = Math.ceil(now.getTime() / MINUTE) * MINUTE;
  for (let t = start; t < start + 7 * 24 * 60 * MINUTE; t += 5 * MINUTE) {
    if (inWorkingHours(hours, timezone, new Date(t))) {
      // Back to the slot's first minute within the last five.
      let first = t;
      while (first - MINUTE > t - 5 * MINUTE && inWorkingHours(hours, timezone, new Date(first - MINUTE))) first -= MINUTE;
      return new Date(first);
    }
  }
  return now;
}
