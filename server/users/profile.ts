import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { invalidFields, type FieldProblem } from '@/server/http/errors';
import { deepMerge } from '@/server/user-record/defaults';
import { presentUser } from '@/server/user-record/present';
import type { UpdateProfileBody } from './profile-contracts';

export async function getProfile(db: Db, actor: Actor) {
  return { ok: true as const, user: await presentUser(db, requireUser(actor), { withIdentifiers: true }) };
}

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
  const [updated] = set ? await db.update(users).set(set).where(eq(users.id, user.id)).returning() : [user];
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
