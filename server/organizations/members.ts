import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { accounts, identifiers, teamMemberships, teams, users, type OrganizationRow, type UserRow } from '@/db/schema';
import { hostedOrigin } from '@/server/hosted/origin';
import type { Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';
import { activeMembership, createOwnTeam, joinTeam, ownedTeamWithOthers } from '@/server/teams/membership';
import { createUserWithEmail } from '@/server/users/provision';
import { assertNotOnlyOrgAdmin } from '@/server/users/refusals';
import { sendMail } from '@/server/mail/mailer';
import { organizationFor } from './access';
import type { AddMemberBody } from './contracts';

/**
 * Adds a person to the organization: the user is created when needed and placed on the
 * default team when one is set. A user of another organization is refused with 403.
 */
export async function addMember(db: Db, actor: Actor, orgId: string, input: z.infer<typeof AddMemberBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  let isNew = false;
  const user = await db.transaction(async (tx) => {
    const [found] = await tx
      .select({ user: users })
      .from(identifiers)
      .innerJoin(users, eq(users.id, identifiers.userId))
      .where(and(eq(identifiers.accountId, actor.accountId), eq(identifiers.type, 'email'), eq(identifiers.value, input.email)))
      .limit(1);
    isNew = !found;
    let u = found?.user ?? (await createUserWithEmail(tx, { accountId: actor.accountId, email: input.email, organizationId: org.id }));
    if (u.organizationId && u.organizationId !== org.id) throw forbidden('The user belongs to another organization');
    return placeInOrganization(tx, org, u);
  });
  // New people are invited; existing ones are told they were added (the in-app notice has no API shape).
  const [account] = await db.select({ hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, actor.accountId));
  const signIn = account?.hostedDomain ? `\n\nSign in at ${hostedOrigin(new Headers(), account.hostedDomain).origin}/sign-in` : '';
  await sendMail(db, {
    accountId: actor.accountId,
    to: user.email,
    subject: isNew ? `You are invited to ${org.name}` : `You were added to ${org.name}`,
    text: isNew
      ? `You have been invited to join ${org.name}. Sign in with this email address to get started.${signIn}`
      : `You are now a member of ${org.name}.${signIn}`,
  });
  return {
    ok: true as const,
    member: { id: user.id, email: user.email, name: user.name, organizationRole: user.organizationRole, createdAt: user.createdAt.toISOString() },
  };
}

/** Makes the user a member of the organization (when they have none) and places them on its default team, or a team of their own. */
export async function placeInOrganization(tx: Tx, org: OrganizationRow, user: UserRow): Promise<UserRow> {
  let u = user;
  if (!u.organizationId) [u] = await tx.update(users).set({ organizationId: org.id, organizationRole: 'member' }).where(eq(users.id, u.id)).returning();
  const [defaultTeam] = org.defaultTeamId ? await tx.select().from(teams).where(eq(teams.id, org.defaultTeamId)) : [];
  const current = await activeMembership(tx, u.id);
  if (defaultTeam && current?.t.id !== defaultTeam.id && !(await ownedTeamWithOthers(tx, u.id))) await joinTeam(tx, u, defaultTeam, 'member');
  else if (!current) await createOwnTeam(tx, u, org.id);
  return u;
}

/** Removes the user from the organization and its teams; they keep or get a team of their own. */
export async function removeMember(db: Db, actor: Actor, orgId: string, userId: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  await db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(and(eq(users.id, userId), eq(users.organizationId, org.id)));
    if (!user) throw notFound('Member');
    await assertNotOnlyOrgAdmin(tx, user);
    const orgTeamIds = (await tx.select({ id: teams.id }).from(teams).where(eq(teams.organizationId, org.id))).map((t) => t.id);
    if (orgTeamIds.length) {
      await tx
        .update(teamMemberships)
        .set({ status: 'archived' })
        .where(and(eq(teamMemberships.userId, user.id), inArray(teamMemberships.teamId, orgTeamIds)));
    }
    const [left] = await tx.update(users).set({ organizationId: null, organizationRole: 'member' }).where(eq(users.id, user.id)).returning();
    if (!(await activeMembership(tx, user.id))) await createOwnTeam(tx, left, null);
  });
  return { ok: true as const, member: { id: userId, deleted: true as const, message: `Removed from ${org.name}` } };
}

