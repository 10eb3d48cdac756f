import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { accounts, teamMemberships, teams, users, type OrganizationInvitationRow, type UserRow } from '@/db/schema';
import { siteOrigin } from '@/server/hosted/origin';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';
import { findUserByVerifiedEmail, normalizeEmail } from '@/server/identifiers/verified-email';
import { activeMembership, createOwnTeam } from '@/server/teams/membership';
import { createUserWithEmail } from '@/server/user-record/create';
import { assertNotOnlyOrgAdmin } from './refusals';
import { sendMail } from '@/server/mail/mailer';
import { organizationFor } from './access';
import type { AddMemberBody } from './contracts';
import { verifyingOrganization } from './domains';
import { inviteToOrganization } from './invitations';
import { placeInOrganization } from './placement';
import { vouchesFor } from './vouching';
import { recordAudit } from '@/server/audit/record';

/**
 * Adds a person to the organization. Direct only where the caller speaks for the person: an
 * account-wide credential (it already reaches every user), or an address at one of the
 * organization's verified domains. There the user is created when needed and placed on the
 * default team; a user of another organization is refused with 403. Anyone else is invited:
 * the membership stays pending until they accept in the hosted app, signed in with that
 * verified address, and the answer is the same whether or not they already have a user.
 */
export async function addMember(db: Db, actor: Actor, orgId: string, input: z.infer<typeof AddMemberBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const email = normalizeEmail(input.email);
  const vouched = isAccountWide(actor) || (await vouchesFor(db, org.id, actor.accountId, email));
  const verifiedBy = vouched ? null : await verifyingOrganization(db, actor.accountId, email);
  type Outcome = { kind: 'member'; user: UserRow; isNew: boolean } | { kind: 'invited'; invitation: OrganizationInvitationRow };
  // A concurrent add of the same new address loses on the unique index; the second attempt finds the person.
  const attempt = () => db.transaction(async (tx): Promise<Outcome> => {
    const found = await findUserByVerifiedEmail(tx, actor.accountId, email);
    // People at a domain another organization verified are that organization's to manage, as in provisioning.
    if (verifiedBy && found?.organizationId !== org.id) throw forbidden('The email’s domain is verified by another organization');
    if (found?.organizationId === org.id || vouched) {
      if (found?.organizationId && found.organizationId !== org.id) throw forbidden('The user belongs to another organization');
      const user = found ?? (await createUserWithEmail(tx, { accountId: actor.accountId, email, organizationId: org.id }));
      const placed = await placeInOrganization(tx, org, user);
      if (found?.organizationId !== org.id) await recordAudit(tx, actor, 'member.added', { type: 'user', id: placed.id }, { organizationId: org.id, before: found ? { organizationId: found.organizationId } : null, after: { organizationId: org.id, organizationRole: placed.organizationRole, created: !found } });
      return { kind: 'member', user: placed, isNew: !found };
    }
    // Someone to invite gets a user of the account (outside any organization) so they can sign in to answer.
    if (!found) await createOwnTeam(tx, await createUserWithEmail(tx, { accountId: actor.accountId, email, organizationId: null }), null);
    return { kind: 'invited', invitation: await inviteToOrganization(tx, org, email, actor.user?.id ?? null) };
  });
  const outcome = await attempt().catch((e) => {
    const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
    if (code === '23505') return attempt();
    throw e;
  });

  const [account] = await db.select({ hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, actor.accountId));
  const origin = account?.hostedDomain ? siteOrigin(account.hostedDomain).origin : null;
  if (outcome.kind === 'invited') {
    const { invitation } = outcome;
    const where = origin ? `at ${origin}/invitations` : 'in the hosted app, under Invitations';
    await sendMail(db, {
      accountId: actor.accountId,
      to: invitation.email,
      subject: `You are invited to join ${org.name}`,
      text: `You have been invited to join ${org.name}. Nothing changes unless you accept: sign in with this email address and answer the invitation ${where}.`,
    });
    const member = { id: invitation.id, email: invitation.email, name: null, organizationRole: 'member' as const, status: 'invited' as const, createdAt: invitation.createdAt.toISOString() };
    return { ok: true as const, member };
  }
  // New people are invited to sign in; existing ones are told they were added (the in-app notice has no API shape).
  const { user, isNew } = outcome;
  const signIn = origin ? `\n\nSign in at ${origin}/sign-in` : '';
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
    member: { id: user.id, email: user.email, name: user.name, organizationRole: user.organizationRole, status: 'active' as const, createdAt: user.createdAt.toISOString() },
  };
}

/** Re-exported for the callers that place people (SAML, sign-in links); the rule lives in placement.ts. */
export { placeInOrganization };

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
    await recordAudit(tx, actor, 'member.removed', { type: 'user', id: user.id }, { organizationId: org.id, before: { organizationId: org.id, organizationRole: user.organizationRole }, after: { organizationId: null } });
  });
  return { ok: true as const, member: { id: userId, deleted: true as const, message: `Removed from ${org.name}` } };
}

