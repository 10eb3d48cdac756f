import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { users, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { invalidFields, type FieldProblem } from '@/server/http/errors';
import { deepMerge } from '@/server/user-record/defaults';
import { presentUser } from '@/server/user-record/present';
import type { UpdateProfileBody } from './profile-contracts';

export async function getProfile(db: Db, actor: Actor) {
  return { ok: true as const, user: await presentUser(db, requireUser(actor), { withIdentifiers: true }) };
}

type PreferencesPatch = NonNullable<z.infer<typeof UpdateProfileBody>['preferences']>;

/** What a hook does once the preferences' transaction has committed (tell a provider...), with the database. */
export type AfterCommit = (db: Db) => Promise<void>;

/**
 * Who hears that a user's preferences were written, inside the transaction that writes them: the
 * calendars area (a calendar no longer read loses its push channel with the change, issue 43).
 * Areas above users cannot be imported here, so they register from the entry floor
 * (server/compose/area-hooks.ts). `patch` is what the caller sent, `preferences` the merged result.
 */
export type PreferencesWritten = (tx: Tx, userId: string, written: { patch: PreferencesPatch; preferences: UserRow['preferences'] }) => Promise<AfterCommit | void>;

const preferencesHooks: PreferencesWritten[] = [];

export function registerPreferencesWritten(fn: PreferencesWritten): void {
  if (!preferencesHooks.includes(fn)) preferencesHooks.push(fn);
}

/**
 * Takes the database, not a caller's transaction: a preferences change is written in a transaction
 * of its own with what the hooks change, and what they do after the commit (best-effort, never
 * throwing) follows that commit before the answer.
 */
export async function updateProfile(db: Db, actor: Actor, input: z.infer<typeof UpdateProfileBody>) {
  const user = requireUser(actor);
  const { avatar, preferences, timezone, ...rest } = input;
  const set = changedFields({
    ...rest,
    avatarUrl: avatar,
    timezone,
    timezoneSetAt: timezone === undefined ? undefined : new Date(),
    preferences: preferences ? deepMerge(user.preferences, preferences) : undefined,
  });
  const write = async (tx: Tx) => {
    const [row] = set ? await tx.update(users).set(set).where(eq(users.id, user.id)).returning() : [user];
    const after: AfterCommit[] = [];
    if (preferences) {
      for (const hook of preferencesHooks) {
        const then = await hook(tx, user.id, { patch: preferences, preferences: row.preferences });
        if (then) after.push(then);
      }
    }
    return { updated: row, after };
  };
  const { updated, after } = preferences && preferencesHooks.length ? await db.transaction(write) : await write(db);
  for (const then of after) await then(db);
  return { ok: true as const, user: await presentUser(db, updated, { withIdentifiers: true }) };
}

/** Onboarding finishes once a timezone and working hours have been saved. */
export async function markOnboarded(db: Db, actor: Actor) {
  const user = requireUser(actor);
  if (user.onboardedAt) return { ok: true as const };
  const missing: FieldProblem[] = [];
  if (!user.timezoneSetAt) missing.push({ field: 'timezone', problem: 'not saved yet: PATCH /profile with timezone' });
  if (!user.workingHoursSetAt) {
    missing.push({ field: 'workingHours', problem: 'not saved yet: PUT /users/{userId}/preferences/scheduling with workingHours' });
  }
  if (missing.length) throw invalidFields(missing);
  await db.update(users).set({ onboardedAt: new Date() }).where(eq(users.id, user.id));
  return { ok: true as const };
}
