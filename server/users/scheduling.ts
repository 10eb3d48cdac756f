import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { users, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { DAYS, SchedulingPreferences, type PutSchedulingBody } from './scheduling-contracts';
import { visibleUser } from '@/server/user-record/access';

const DEFAULT_HOURS = Object.fromEntries(
  DAYS.map((d) => [d, ['SA', 'SU'].includes(d) ? [] : [{ start: '09:00', end: '17:00' }]]),
);

function view(user: UserRow) {
  const saved = SchedulingPreferences.parse(user.schedulingPreferences ?? {});
  const workingHours = Object.fromEntries(DAYS.map((d) => [d, saved.availability.workingHours?.[d] ?? []]));
  return {
    ok: true as const,
    schedulingPreferences: {
      ...saved,
      availability: { ...saved.availability, workingHours: saved.availability.workingHours ? workingHours : DEFAULT_HOURS },
    },
    workingHoursSaved: user.workingHoursSetAt !== null,
  };
}

export async function getScheduling(db: Db, actor: Actor, userId: string) {
  return view(await visibleUser(db, actor, userId));
}

/** Replaces the whole object: omitted fields return to defaults, an omitted workingHours keeps the saved hours. */
export async function putScheduling(db: Db, actor: Actor, userId: string, input: z.infer<typeof PutSchedulingBody>) {
  const user = await visibleUser(db, actor, userId);
  const incoming = input.schedulingPreferences;
  const previous = SchedulingPreferences.parse(user.schedulingPreferences ?? {});
  const workingHours = incoming.availability.workingHours ?? previous.availability.workingHours;
  const next = { ...incoming, availability: { ...incoming.availability, workingHours } };
  const [updated] = await db
    .update(users)
    .set({
      schedulingPreferences: next,
      ...(incoming.availability.workingHours ? { workingHoursSetAt: new Date() } : {}),
    })
    .where(eq(users.id, user.id))
    .returning();
  return view(updated);
}
