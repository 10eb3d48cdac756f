import type { z } from 'zod';
import type { UserPreferences } from './contracts';

const channel = (enabled: boolean) => ({ enabled, virtualDuration: 30, inPersonDuration: 60 });

/** What a new user's `preferences` hold; stored values are merged over these. */
export const defaultPreferences = (): z.infer<typeof UserPreferences> => ({
  reminders: { level: 'svc-events', smartReminders: true, recipient: { asOrganizer: 'only-me', asAttendee: 'only-me' } },
  calendars: { read: [] },
  // On: notices may reach the person there once they are reachable there (a linked Slack or Teams identity).
  email: channel(true),
  slack: channel(true),
  teams: channel(true),
  // Off until the person allows the hosted app's desktop notifications in their browser.
  desktop: channel(false),
  checkInAfter: 0,
  notifications: { channel: 'email', quietHours: true, approvalsByText: false },
});

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge of plain objects; arrays and scalars in `patch` replace. */
export function deepMerge<T>(base: T, patch: unknown): T {
  if (!isPlain(base) || !isPlain(patch)) return (patch === undefined ? base : patch) as T;
  const out: Plain = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = isPlain(out[k]) && isPlain(v) ? deepMerge(out[k], v) : v;
  }
  return out as T;
}
