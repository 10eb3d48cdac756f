import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Db } from '@/db/client';
import { samlAssertionsSeen, samlRequests } from '@/db/schema';

/** SP-initiated sign-in must complete within this window. */
export const REQUEST_TTL_MS = 10 * 60_000;

/**
 * node-saml's InResponseTo cache, kept in Postgres so any app instance can finish a sign-in
 * another started. Scoped to one organization: a response can only answer that organization's requests.
 */
export class SamlRequestStore implements CacheProvider {
  constructor(
    private readonly db: Db,
    private readonly scope: { accountId: string; organizationId: string; returnTo?: string },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    await this.db
      .insert(samlRequests)
      .values({ id: key, accountId: this.scope.accountId, organizationId: this.scope.organizationId, returnTo: this.scope.returnTo ?? '/' })
      .onConflictDoNothing();
    return { value, createdAt: this.now().getTime() };
  }

  async getAsync(key: string): Promise<string | null> {
    const oldest = new Date(this.now().getTime() - REQUEST_TTL_MS);
    const [row] = await this.db
      .select()
      .from(samlRequests)
      .where(and(eq(samlRequests.id, key), eq(samlRequests.organizationId, this.scope.organizationId), gt(samlRequests.createdAt, oldest)));
    return row ? row.createdAt.toISOString() : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (!key) return null;
    const [row] = await this.db
      .delete(samlRequests)
      .where(and(eq(samlRequests.id, key), eq(samlRequests.organizationId, this.scope.organizationId)))
      .returning();
    return row ? key : null;
  }
}

/** The pending request a response claims to answer (read before verification only to pick the organization). */
export async function pendingRequest(db: Db, accountId: string, id: string) {
  const [row] = await db.select().from(samlRequests).where(and(eq(samlRequests.id, id), eq(samlRequests.accountId, accountId)));
  return row ?? null;
}

/** Records an accepted assertion; false when it was accepted before (a replay). */
export async function acceptOnce(db: Db, organizationId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
  const inserted = await db.insert(samlAssertionsSeen).values({ organizationId, assertionId, expiresAt }).onConflictDoNothing().returning();
  return inserted.length === 1;
}

/** Drops expired replay records and abandoned requests (called by the hourly sweep and after sign-ins). */
export async function sweepSamlState(db: Db, now = new Date()) {
  await db.delete(samlAssertionsSeen).where(lt(samlAssertionsSeen.expiresAt, now));
  await db.delete(samlRequests).where(lt(samlRequests.createdAt, sql`${new Date(now.getTime() - REQUEST_TTL_MS)}::timestamptz`));
}
