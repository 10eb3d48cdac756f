import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { gmailSettings } from '@/server/channels/gmail/config';
import { gmailRefresh } from '@/server/channels/gmail/oauth';
import { graphSettings } from '@/server/channels/graph/config';
import { GRAPH_CALENDAR_SCOPES, graphRefresh } from '@/server/channels/graph/oauth';
import { ProviderHttpError, type ProviderTokens, type TokenResult } from '@/server/channels/providers';
import { openJson, sealJson } from '@/server/secrets/sealed';

/*
 * The OAuth tokens of a Google or Microsoft calendar connection, kept the way a mailbox keeps its
 * own (server/mailboxes/tokens.ts) and refreshed through the same provider clients: sealed with
 * the deployment's key (JWE, never readable from a dump), opened only to make a call, refreshed a
 * minute before they expire under the holder's row lock (concurrent callers refresh once), the
 * rotated refresh token Microsoft hands back kept. `invalid_grant`, or a fresh access token
 * refused, is a revocation: the holder is marked and only the user connecting again helps. Where
 * the tokens live (the connection's row) is the holder's business: this module only needs it to
 * lock, save and mark.
 */

export type CalendarOAuthProvider = 'google' | 'microsoft';

const Sealed = z.object({ accessToken: z.string().min(1), refreshToken: z.string().min(1).nullable() });
export type CalendarTokens = z.infer<typeof Sealed>;

const purpose = (provider: CalendarOAuthProvider) => `calendar:${provider}`;
const EARLY_MS = 60_000;

/** The provider refuses this connection's tokens: only the user connecting again helps. */
export class CalendarAuthError extends Error {}

/** The row that holds one connection's sealed tokens. */
export type TokenHolder = {
  provider: CalendarOAuthProvider;
  /** Reads the sealed tokens under a row lock; null when the connection is gone. `revoked`: why it no longer works, if it does not. */
  lock(tx: Tx): Promise<{ sealed: string; expiresAt: Date | null; revoked: string | null } | null>;
  save(tx: Tx, sealed: string, expiresAt: Date | null): Promise<void>;
  /** Marks the connection as refused by the provider (the user must connect again). */
  revoke(db: Tx, reason: string): Promise<void>;
};

export const sealCalendarTokens = (db: Tx, provider: CalendarOAuthProvider, tokens: CalendarTokens) => sealJson(db as Db, tokens, purpose(provider));

export async function openCalendarTokens(db: Tx, provider: CalendarOAuthProvider, sealed: string): Promise<CalendarTokens> {
  return Sealed.parse(await openJson(db as Db, sealed, purpose(provider)));
}

/** What a token response gives a connection: the tokens to seal, when the access token expires, and the scopes granted. */
export function calendarTokensFrom(t: ProviderTokens, previousRefresh: string | null, now = new Date()) {
  const tokens: CalendarTokens = { accessToken: t.access_token, refreshToken: t.refresh_token ?? previousRefresh };
  const expiresAt = t.expires_in && Number.isFinite(t.expires_in) ? new Date(now.getTime() + t.expires_in * 1000) : null;
  return { tokens, expiresAt, scopes: t.scope ?? null };
}

function refresh(provider: CalendarOAuthProvider, refreshToken: string): Promise<TokenResult> {
  if (provider === 'google') {
    const cfg = gmailSettings();
    return cfg ? gmailRefresh(cfg, refreshToken) : Promise.resolve({ ok: false, error: 'not_configured', description: 'Google is not configured', status: null });
  }
  const cfg = graphSettings();
  return cfg ? graphRefresh(cfg, refreshToken, GRAPH_CALENDAR_SCOPES) : Promise.resolve({ ok: false, error: 'not_configured', description: 'Microsoft 365 is not configured', status: null });
}

type Outcome = { token: string } | { revoked: string; marked: boolean } | { failed: string };

/**
 * An access token good for at least a minute (`force`: a new one, the stored one having been
 * refused). Throws CalendarAuthError when the connection needs reconnecting, ProviderHttpError
 * when the token endpoint could not answer.
 */
export async function calendarAccessToken(db: Tx, holder: TokenHolder, opts: { force?: boolean; now?: Date } = {}): Promise<string> {
  const now = opts.now ?? new Date();
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const row = await holder.lock(tx);
    if (!row) return { failed: 'The calendar is no longer connected' };
    if (row.revoked) return { revoked: row.revoked, marked: true };
    const sealed = await openCalendarTokens(tx, holder.provider, row.sealed);
    const fresh = row.expiresAt === null || row.expiresAt.getTime() - EARLY_MS > now.getTime();
    if (fresh && !opts.force) return { token: sealed.accessToken };
    if (!sealed.refreshToken) return { revoked: 'the access token expired and the provider gave no refresh token', marked: false };
    const answer = await refresh(holder.provider, sealed.refreshToken);
    if (!answer.ok) {
      const why = `${answer.error}${answer.description ? `: ${answer.description}` : ''}`;
      // Only a refused grant needs the user (RFC 6749 5.2); a refused client is the operator's configuration.
      return answer.error === 'invalid_grant' ? { revoked: `the provider refused the refresh token (${why})`, marked: false } : { failed: `the tokens could not be refreshed (${why})` };
    }
    const next = calendarTokensFrom(answer.tokens, sealed.refreshToken, now);
    await holder.save(tx, await sealCalendarTokens(tx, holder.provider, next.tokens), next.expiresAt);
    return { token: next.tokens.accessToken };
  });
  if ('token' in outcome) return outcome.token;
  if ('failed' in outcome) throw new ProviderHttpError('the token endpoint', null, 'refresh_failed', outcome.failed, false);
  if (!outcome.marked) await holder.revoke(db, outcome.revoked);
  throw new CalendarAuthError(`The calendar must be connected again: ${outcome.revoked}`);
}

/**
 * Runs a provider call with the connection's access token. A 401 means the provider did not take
 * the request: the token is refreshed and the call made once more; a second 401 is a revocation.
 */
export async function withCalendarAccess<T>(db: Tx, holder: TokenHolder, call: (accessToken: string) => Promise<T>): Promise<T> {
  try {
    return await call(await calendarAccessToken(db, holder));
  } catch (e) {
    if (!(e instanceof ProviderHttpError && e.status === 401)) throw e;
  }
  try {
    return await call(await calendarAccessToken(db, holder, { force: true }));
  } catch (e) {
    if (!(e instanceof ProviderHttpError && e.status === 401)) throw e;
    await holder.revoke(db, 'the provider refused a freshly refreshed access token');
    throw new CalendarAuthError('The calendar must be connected again: the provider refuses its tokens');
  }
}
