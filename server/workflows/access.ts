import { and, eq, isNull, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { skills, type SkillRow } from '@/db/schema/skills';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { forbidden, notFound } from '@/server/http/errors';

/**
 * Who reaches which skill: a user their own and the account's app-wide ones (reading and running
 * them, not changing them); an account-wide key every skill of the account. Another user's skill
 * is 404.
 */
export function skillOwnerFor(actor: Actor): string | null {
  if (actor.user) return actor.user.id;
  if (!isAccountWide(actor)) requireUser(actor);
  return null;
}

export function visibleSkills(actor: Actor) {
  const owner = skillOwnerFor(actor);
  return and(eq(skills.accountId, actor.accountId), owner ? or(eq(skills.ownerUserId, owner), isNull(skills.ownerUserId)) : undefined);
}

export async function readableSkill(db: Tx, actor: Actor, skillId: string): Promise<SkillRow> {
  const [row] = await db.select().from(skills).where(and(eq(skills.id, skillId), visibleSkills(actor)));
  if (!row) throw notFound('Skill');
  return row;
}

/** Changing or deleting: the owner, or an account-wide key; an app-wide skill only with the account key. */
export async function changeableSkill(db: Tx, actor: Actor, skillId: string): Promise<SkillRow> {
  const row = await readableSkill(db, actor, skillId);
  if (actor.user && row.ownerUserId !== actor.user.id) throw forbidden('An app-wide skill is changed with an account-wide key without X-User-Email', 'account_key_required');
  return row;
}
