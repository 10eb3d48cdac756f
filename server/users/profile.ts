import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, invalidFields, type FieldProblem } from '@/server/http/errors';
import type { UpdateProfileBody } from './contracts';
import { deepMerge } from './defaults';
import { presentUser } from './present';

function actingUser(actor: Actor) {
  if (!actor.user) throw badRequest('This call acts as a user');
  return actor.user;
}

export async function getProfile(db: Db, actor: Actor) {
  return { ok: true as const, user: await presentUser(db, actingUser(actor), { withIdentifiers: true }) };
}

export async function updateProfile(db: Db, actor: Actor, input: z.infer<typeof UpdateProfileBody>) {
  const user = actingUser(actor);
  const { avatar, preferences, timezone, ...rest } = input;
  const set = changedFields({
    ...rest,
    ...(avatar !== undefined ? { avatarUrl: avatar } : {}),
    ...(timezone !== undefined ? { timezone, timezoneSetAt: new Date() } : {}),
    ...(preferences ? { preferences: deepMerge(user.preferences, preferences) } : {}),
  });
  const [updated] = set ? await db.update(users).set(set).where(eq(users.id, user.id)).returning() : [user];
  return { ok: true as const, user: await presentUser(db, updated, { withIdentifiers: true }) };
}

/** Onboarding finishes once a timezone and working hours have been saved. */
export async function markOnboarded(db: Db, actor: Actor) {
  const user = actingUser(actor);
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
