import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { calendarGrants, type CalendarGrantProvider, type CalendarGrantRow } from '@/db/schema';
import type { ProviderTokens } from '@/server/channels/providers';
import { calendarTokensFrom, openCalendarTokens, sealCalendarTokens, withCalendarAccess, type TokenHolder } from './oauth-tokens';

/*
 * A user's OAuth grants to their Google and Microsoft calendars (calendar_grants): stored when
 * they connect (again: the same account's grant is replaced, its tokens with it), and the holder
 * through which every provider call gets a working access token.
 */

export async function grantById(db: Tx, id: string): Promise<CalendarGrantRow | null> {
  const [row] = await db.select().from(calendarGrants).where(eq(calendarGrants.id, id));
  return row ?? null;
}

/** The holder of one grant's tokens, for calendarAccessToken / withCalendarAccess. */
export function grantHolder(grantId: string, provider: CalendarGrantProvider): TokenHolder {
  return {
    provider,
    async lock(tx) {
      const [row] = await tx.select().from(calendarGrants).where(eq(calendarGrants.id, grantId)).for('update');
      if (!row) return null;
      return { sealed: row.tokens, expiresAt: row.tokenExpiresAt, revoked: row.authError ? (row.authErrorReason ?? 'the provider refused the calendar’s tokens') : null };
    },
    async save(tx, sealed, expiresAt) {
      await tx.update(calendarGrants).set({ tokens: sealed, tokenExpiresAt: expiresAt }).where(eq(calendarGrants.id, grantId));
    },
    async revoke(db, reason) {
      await db
        .update(calendarGrants)
        .set({ authError: true, authErrorReason: reason.slice(0, 500) })
        .where(eq(calendarGrants.id, grantId));
    },
  };
}

/** How an adapter makes a provider call: with an access token good for it. */
export type CalendarAccessCall = <T>(call: (accessToken: string) => Promise<T>) => Promise<T>;

/** Runs a provider call with the grant's access token (refreshed when due, once more after a 401). */
export const withGrant = <T>(db: Tx, grant: Pick<CalendarGrantRow, 'id' | 'provider'>, call: (accessToken: string) => Promise<T>) => withCalendarAccess(db, grantHolder(grant.id, grant.provider), call);

/** Stores a new grant, or replaces the tokens of the user's grant for the same account (connecting again cures a revoked one). */
export async function storeGrant(db: Tx, owner: { accountId: string; userId: string }, provider: CalendarGrantProvider, address: string, answer: ProviderTokens, now = new Date()): Promise<CalendarGrantRow> {
  const t = calendarTokensFrom(answer, null, now);
  const [previous] = await db
    .select()
    .from(calendarGrants)
    .where(and(eq(calendarGrants.userId, owner.userId), eq(calendarGrants.provider, provider), eq(calendarGrants.address, address)));
  // Google hands out no new refresh token when the grant is only extended: keep the one it gave before.
  const refreshToken = t.tokens.refreshToken ?? (previous ? await previousRefresh(db, previous) : null);
  const values = {
    tokens: await sealCalendarTokens(db, provider, { ...t.tokens, refreshToken }),
    tokenExpiresAt: t.expiresAt,
    scopes: t.scopes ?? '',
    authError: false,
    authErrorReason: null,
    connectedAt: now,
  };
  const [row] = await db
    .insert(calendarGrants)
    .values({ accountId: owner.accountId, userId: owner.userId, provider, address, ...values })
    .onConflictDoUpdate({ target: [calendarGrants.userId, calendarGrants.provider, calendarGrants.address], set: values })
    .returning();
  return row;
}

async function previousRefresh(db: Tx, row: CalendarGrantRow): Promise<string | null> {
  try {
    return (await openCalendarTokens(db, row.provider, row.tokens)).refreshToken;
  } catch {
    return null;
  }
}
