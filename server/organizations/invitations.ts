import { recordAudit } from '@/server/audit/record';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { identifiers, organizationInvitations, organizations, users, type OrganizationInvitationRow, type OrganizationRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { conflict, forbidden, notFound } from '@/server/http/errors';
import { normalizeEmail } from '@/server/identifiers/verified-email';
import { placeInOrganization } from './placement';


/**
 * Records (or renews) the organization's pending invitation to an address. Nothing about the
 * person changes until they accept.
 */
export async function inviteToOrganization(tx: Tx, org: OrganizationRow, email: string, invitedBy: string | null): Promise<OrganizationInvitationRow> {
  const [row] = await tx
    .insert(organizationInvitations)
    .values({ accountId: org.accountId, organizationId: org.id, email: normalizeEmail(email), invitedBy })
    .onConflictDoUpdate({
      target: [organizationInvitations.organizationId, organizationInvitations.email],
      set: { status: 'pending', invitedBy, respondedAt: null },
    })
    .returning();
  return row;
}

const toPublic = (i: OrganizationInvitationRow, org: { id: string; name: string }) => ({
  id: i.id,
  organization: { id: org.id, name: org.name },
  email: i.email,
  status: i.status,
  createdAt: i.createdAt.toISOString(),
});

/** Only the person can answer: someone signed in to the hosted app, not a key acting for them. */
function person(actor: Actor) {
  if (!actor.user || actor.actingVia !== 'portal_session') throw forbidden('Invitations are answered by the person, signed in to the hosted app');
  return actor.user;
}

/** The addresses the person has proven: the only ones whose invitations they may see or answer. */
async function provenAddresses(db: Tx, userId: string): Promise<string[]> {
  const rows = await db
    .select({ value: identifiers.value })
    .from(identifiers)
    .where(and(eq(identifiers.userId, userId), eq(identifiers.type, 'email'), eq(identifiers.verified, true)));
  return rows.map((r) => r.value);
}

/** Pending invitations addressed to one of the signed-in person's verified emails, oldest first. */
export async function listMyInvitations(db: Db, actor: Actor) {
  const user = person(actor);
  const addresses = await provenAddresses(db, user.id);
  if (!addresses.length) return { ok: true as const, invitations: [] };
  const rows = await db
    .select({ i: organizationInvitations, org: { id: organizations.id, name: organizations.name } })
    .from(organizationInvitations)
    .innerJoin(organizations, eq(organizations.id, organizationInvitations.organizationId))
    .where(and(eq(organizationInvitations.accountId, actor.accountId), eq(organizationInvitations.status, 'pending'), inArray(organizationInvitations.email, addresses)))
    .orderBy(asc(organizationInvitations.createdAt));
  return { ok: true as const, invitations: rows.map((r) => toPublic(r.i, r.org)) };
}

/** The pending invitation, if it is addressed to the person; anyone else's is 404. */
async function myPendingInvitation(tx: Tx, actor: Actor, userId: string, invitationId: string) {
  const [row] = await tx
    .select({ i: organizationInvitations, org: organizations })
    .from(organizationInvitations)
    .innerJoin(organizations, eq(organizations.id, organizationInvitations.organizationId))
    .where(and(eq(organizationInvitations.id, invitationId), eq(organizationInvitations.accountId, actor.accountId), eq(organizationInvitations.status, 'pending')))
    .for('update', { of: organizationInvitations })
    .limit(1);
  if (!row || !(await provenAddresses(tx, userId)).includes(row.i.email)) throw notFound('Invitation');
  return row;
}

/** Accepting places the person exactly as an organization admin adding them at a verified domain would. */
export async function acceptInvitation(db: Db, actor: Actor, invitationId: string) {
  const { id: userId } = person(actor);
  return db.transaction(async (tx) => {
    const { i, org } = await myPendingInvitation(tx, actor, userId, invitationId);
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (user.organizationId && user.organizationId !== org.id) {
      throw conflict('You already belong to another organization; leave it before joining this one');
    }
    await placeInOrganization(tx, org, user);
    await recordAudit(tx, actor, 'member.added', { type: 'user', id: user.id }, { organizationId: org.id, before: { organizationId: user.organizationId }, after: { organizationId: org.id, organizationRole: 'member', via: 'invitation', invitationId: i.id } });
    const [done] = await tx.update(organizationInvitations).set({ status: 'accepted', respondedAt: new Date() }).where(eq(organizationInvitations.id, i.id)).returning();
    return { ok: true as const, invitation: toPublic(done, org) };
  });
}

export async function declineInvitation(db: Db, actor: Actor, invitationId: string) {
  const { id: userId } = person(actor);
  return db.transaction(async (tx) => {
    const { i, org } = await myPendingInvitation(tx, actor, userId, invitationId);
    const [done] = await tx.update(organizationInvitations).set({ status: 'declined', respondedAt: new Date() }).where(eq(organizationInvitations.id, i.id)).returning();
    return { ok: true as const, invitation: toPublic(done, org) };
  });
}
