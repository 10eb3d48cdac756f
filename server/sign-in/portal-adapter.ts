import { and, eq } from 'drizzle-orm';
import type { Adapter, AdapterUser } from 'next-auth/adapters';
import type { Db } from '@/db/client';
import { organizations, portalVerificationTokens, users, type AccountRow, type UserRow } from '@/db/schema';
import { forbidden } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { autoJoinOrganization } from '@/server/organizations/domains';
import { placeInOrganization } from '@/server/organizations/members';
import { createUserWithEmail } from '@/server/user-record/create';

const toAdapterUser = (u: UserRow): AdapterUser => ({ id: u.id, email: u.email, name: u.name, emailVerified: null });

/**
 * next-auth's storage for the hosted app of one account: email-link tokens (next-auth hashes them
 * before they reach us) and the account's users. Nobody is created here except someone signing
 * up with an email at a verified autoJoin domain, who joins that organization as a member.
 */
export function portalAdapter(db: Db, account: AccountRow): Adapter {
  return {
    async createVerificationToken(t) {
      await db.insert(portalVerificationTokens).values({ accountId: account.id, identifier: t.identifier, token: t.token, expires: t.expires });
      return t;
    },
    async useVerificationToken({ identifier, token }) {
      const [row] = await db
        .delete(portalVerificationTokens)
        .where(and(eq(portalVerificationTokens.accountId, account.id), eq(portalVerificationTokens.identifier, identifier), eq(portalVerificationTokens.token, token)))
        .returning();
      return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
    },
    // A link proves control of the address, so it signs in whoever holds it verified, and only them:
    // someone who merely claims it (unverified, or as users.email) is never found here.
    async getUserByEmail(email) {
      const u = await findUserByVerifiedEmail(db, account.id, email);
      return u ? toAdapterUser(u) : null;
    },
    async getUser(id) {
      const [u] = await db.select().from(users).where(and(eq(users.id, id), eq(users.accountId, account.id)));
      return u ? toAdapterUser(u) : null;
    },
    // next-auth calls this to record emailVerified after a link is used; the primary email is
    // already a verified identifier in Steward, so there is nothing to store.
    async updateUser(patch) {
      const [u] = await db.select().from(users).where(and(eq(users.id, patch.id), eq(users.accountId, account.id)));
      return toAdapterUser(u);
    },
    async createUser(profile: Omit<AdapterUser, 'id'>) {
      const email = profile.email.toLowerCase();
      const orgId = await autoJoinOrganization(db, account.id, email);
      if (!orgId) throw forbidden('No account for this email');
      const u = await db.transaction(async (tx) => {
        const [org] = await tx.select().from(organizations).where(eq(organizations.id, orgId));
        const created = await createUserWithEmail(tx, { accountId: account.id, email, organizationId: org.id });
        return placeInOrganization(tx, org, created);
      });
      return toAdapterUser(u);
    },
  };
}

/** Whether an email may receive a sign-in link: the verified address of a user of the account, or one at a verified autoJoin domain. */
export async function mayRequestLink(db: Db, account: AccountRow, email: string) {
  const address = email.toLowerCase();
  return Boolean(await findUserByVerifiedEmail(db, account.id, address)) || Boolean(await autoJoinOrganization(db, account.id, address));
}
