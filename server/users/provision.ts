import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { organizations, teamMemberships, teams, users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { autoJoinOrganization, verifyingOrganization } from '@/server/organizations/domains';
import { vouchesFor } from '@/server/organizations/vouching';
import { hireDefaultAssistant } from '@/server/organizations/default-assistant';
import { activeMembership, createOwnTeam, joinTeam, ownedTeamWithOthers } from '@/server/teams/membership';
import { createUserWithEmail } from '@/server/user-record/create';
import { presentUser } from '@/server/user-record/present';
import { recordAudit } from '@/server/audit/record';
import type { ProvisionUserBody } from './contracts';

const HEX24 = /^[0-9a-f]{24}$/;

/**
 * Creates the user (or finds them by email) and places them on a team. Idempotent.
 * Callers: account-wide keys and organization keys.
 */
export async function provisionUser(db: Db, actor: Actor, input: z.infer<typeof ProvisionUserBody>) {
  if (actor.user || actor.level === 'user') throw forbidden('Provisioning needs an account or organization key without X-User-Email');
  const orgScope = actor.level === 'organization' ? actor.organizationId : null;

  // Two concurrent first calls for one email: the loser's insert conflicts, and a retry finds the user.
  const result = await retryOnUniqueViolation(() => db.transaction(async (tx) => {
    let team = null;
    if (input.teamId) {
      [team] = await tx
        .select()
        .from(teams)
        .where(and(eq(teams.id, input.teamId), eq(teams.accountId, actor.accountId)))
        .limit(1);
      if (!team || (orgScope && team.organizationId !== orgScope)) throw notFound('Team');
      const verifiedBy = await verifyingOrganization(tx as unknown as Db, actor.accountId, input.email);
      if (verifiedBy && team.organizationId && team.organizationId !== verifiedBy) {
        throw forbidden('The email’s domain is verified by another organization than the team’s');
      }
    }
    // Without an organization key, a verified autoJoin domain places new users in its organization.
    const autoJoinOrg = orgScope ? null : await autoJoinOrganization(tx as unknown as Db, actor.accountId, input.email);

    let user = await findUserByVerifiedEmail(tx, actor.accountId, input.email);
    // An organization key speaks for its verified domains only: it may neither adopt someone
    // outside them nor create an org-controlled user holding somebody else's address. One answer
    // for every such address, so the key learns nothing about who exists.
    if (orgScope && user?.organizationId !== orgScope) {
      if (!(await vouchesFor(tx, orgScope, actor.accountId, input.email))) {
        throw forbidden('An organization key provisions only addresses at the organization’s verified domains; invite anyone else with POST /organizations/{orgId}/members');
      }
      if (user?.organizationId) throw notFound('User');
    }
    let created = false;
    let adopted = false;
    if (!user) {
      const id = input.id && HEX24.test(input.id) ? input.id : undefined;
      if (id) {
        const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.id, id)).limit(1);
        if (taken) throw forbidden('That id is already in use');
      }
      user = await createUserWithEmail(tx, {
        id,
        accountId: actor.accountId,
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        organizationId: orgScope ?? autoJoinOrg,
      });
      created = true;
    } else if (orgScope && !user.organizationId) {
      // At the organization's verified domain (checked above): the organization vouches for them.
      [user] = await tx.update(users).set({ organizationId: orgScope, organizationRole: 'member' }).where(eq(users.id, user.id)).returning();
      adopted = true;
    }

    const flags = { created, addedToTeam: false, alreadyMember: false, joinSkipped: false };
    const current = await activeMembership(tx, user.id);
    if (!team && !current && orgScope) {
      const [org] = await tx.select().from(organizations).where(eq(organizations.id, orgScope)).limit(1);
      if (org?.defaultTeamId) {
        [team] = await tx.select().from(teams).where(eq(teams.id, org.defaultTeamId)).limit(1);
      }
    }
    if (team) {
      if (current?.t.id === team.id) {
        flags.alreadyMember = !created;
      } else if (await ownedTeamWithOthers(tx, user.id)) {
        flags.joinSkipped = true;
      } else {
        await joinTeam(tx, user, team, 'member');
        flags.addedToTeam = true;
      }
    } else if (current) {
      flags.alreadyMember = !created;
    } else {
      await createOwnTeam(tx, user, orgScope ?? user.organizationId);
      flags.addedToTeam = true;
    }
    // Placed in an organization: its default assistant joins their roster (primary if they have none).
    if (user.organizationId) {
      const [org] = await tx.select().from(organizations).where(eq(organizations.id, user.organizationId)).limit(1);
      if (org) await hireDefaultAssistant(tx, org, user);
    }
    const [fresh] = await tx.select().from(users).where(eq(users.id, user.id));
    const placed = await tx
      .select({ id: teamMemberships.id, teamId: teamMemberships.teamId, role: teamMemberships.role })
      .from(teamMemberships)
      .where(and(eq(teamMemberships.userId, user.id), eq(teamMemberships.status, 'active')))
      .limit(1);
    // Audited when something changed (issue 46): a repeat call that finds everyone in place records nothing.
    if (created || adopted || flags.addedToTeam) {
      await recordAudit(tx, actor, 'user.provisioned', { type: 'user', id: fresh.id }, {
        organizationId: fresh.organizationId,
        before: created ? null : { organizationId: adopted ? null : fresh.organizationId, teamId: current?.t.id ?? null },
        after: { email: fresh.email, created, organizationId: fresh.organizationId, teamId: placed[0]?.teamId ?? null, addedToTeam: flags.addedToTeam },
      });
      if (flags.addedToTeam && placed[0]) await recordAudit(tx, actor, 'team_member.added', { type: 'team_member', id: placed[0].id }, { organizationId: fresh.organizationId, after: { userId: fresh.id, teamId: placed[0].teamId, role: placed[0].role } });
      if (adopted || (created && fresh.organizationId)) await recordAudit(tx, actor, 'member.added', { type: 'user', id: fresh.id }, { organizationId: fresh.organizationId, after: { organizationId: fresh.organizationId, organizationRole: fresh.organizationRole } });
    }
    return { user: fresh, teamId: placed[0]?.teamId ?? null, ...flags };
  }));

  return { ...result, user: await presentUser(db, result.user, { withIdentifiers: true }) };
}

async function retryOnUniqueViolation<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if ((e as { code?: string }).code === '23505' || (e as { cause?: { code?: string } }).cause?.code === '23505') return fn();
    throw e;
  }
}
