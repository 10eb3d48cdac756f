import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { mailboxes, type MailboxProvider, type MailboxRow } from '@/db/schema';
import { gmailSettings } from '@/server/channels/gmail/config';
import { gmailRefresh } from '@/server/channels/gmail/oauth';
import { graphSettings } from '@/server/channels/graph/config';
import { graphRefresh } from '@/server/channels/graph/oauth';
import { ProviderHttpError, type ProviderTokens, type TokenResult } from '@/server/channels/providers';
import { openJson, sealJson } from '@/server/secrets/sealed';
import { markAuthError } from './store';

/*
 * A mailbox's tokens: sealed with the deployment's sealing key (JWE), opened only to make a
 * call, refreshed a minute before they expire (under the row's lock, so concurrent callers
 * refresh once), and the rotated refresh token Microsoft hands back kept. The provider refusing
 * the refresh token (`invalid_grant`), or a fresh access token, is a revocation: the mailbox is
 * marked (authError, and `inboxAuthError` on the user's assistants) until the user reconnects.
 */

const Sealed = z.object({ accessToken: z.string().min(1), refreshToken: z.string().min(1).nullable() });
export type MailboxTokens = z.infer<typeof Sealed>;

const purpose = (provider: MailboxProvider) => `mailbox:${provider}`;
const EARLY_MS = 60_000;

/** The provider refuses this mailbox's tokens: only the user connecting again helps. */
export class MailboxAuthError extends Error {}

export const sealTokens = (db: Tx, provider: MailboxProvider, tokens: MailboxTokens) => sealJson(db as Db, tokens, purpose(provider));

export async function openTokens(db: Tx, row: Pick<MailboxRow, 'provider' | 'tokens'>): Promise<MailboxTokens> {
  return Sealed.parse(await openJson(db as Db, row.tokens, purpose(row.provider)));
}

/** What a token response gives a mailbox: the tokens to seal and when the access token expires. */
export function fromTokenResponse(t: ProviderTokens, previousRefresh: string | null, now = new Date()) {
  const tokens: MailboxTokens = { accessToken: t.access_token, refreshToken: t.refresh_token ?? previousRefresh };
  const expiresAt = t.expires_in && Number.isFinite(t.expires_in) ? new Date(now.getTime() + t.expires_in * 1000) : null;
  return { tokens, expiresAt, scopes: t.scope ?? null };
}

function refresh(provider: MailboxProvider, refreshToken: string): Promise<TokenResult> {
  if (provider === 'gmail') {
    const cfg = gmailSettings();
    return cfg ? gmailRefresh(cfg, refreshToken) : Promise.resolve({ ok: false, error: 'not_configured', description: 'Gmail is not configured', status: null });
  }
  const cfg = graphSettings();
  return cfg ? graphRefresh(cfg, refreshToken) : Promise.resolve({ ok: false, error: 'not_configured', description: 'Microsoft 365 mail is not configured', status: null });
}

/**
 * A refusal that only the user reconnecting cures (RFC 6749 section 5.2: the grant is revoked or
 * expired). A refused client (invalid_client) is the deployment's configuration, which the operator
 * fixes: it does not send every user to reconnect.
 */
const revoked = (r: Extract<TokenResult, { ok: false }>) => r.error === 'invalid_grant';

type Outcome = { token: string } | { revoked: string; row: MailboxRow } | { failed: string };

/**
 * An access token good for at least a minute (`force`: a new one, the stored one having been
 * refused). Throws MailboxAuthError when the mailbox needs reconnecting, ProviderHttpError when
 * the token endpoint could not answer.
 */
export async function accessToken(db: Tx, mailboxId: string, opts: { force?: boolean; now?: Date } = {}): Promise<string> {
  const now = opts.now ?? new Date();
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const [row] = await tx.select().from(mailboxes).where(eq(mailboxes.id, mailboxId)).for('update');
    if (!row) return { failed: 'The mailbox is no longer connected' };
    if (row.authError) return { revoked: row.authErrorReason ?? 'the provider refused the mailbox’s tokens', row };
    const sealed = await openTokens(tx, row);
    const fresh = row.tokenExpiresAt === null || row.tokenExpiresAt.getTime() - EARLY_MS > now.getTime();
    if (fresh && !opts.force) return { token: sealed.accessToken };
    if (!sealed.refreshToken) return { revoked: 'the access token expired and the provider gave no refresh token', row };
    const answer = await refresh(row.provider, sealed.refreshToken);
    if (!answer.ok) {
      const why = `${answer.error}${answer.description ? `: ${answer.description}` : ''}`;
      return revoked(answer) ? { revoked: `the provider refused the refresh token (${why})`, row } : { failed: `the tokens could not be refreshed (${why})` };
    }
    const next = fromTokenResponse(answer.tokens, sealed.refreshToken, now);
    await tx
      .update(mailboxes)
      .set({ tokens: await sealTokens(tx, row.provider, next.tokens), tokenExpiresAt: next.expiresAt })
      .where(eq(mailboxes.id, row.id));
    return { token: next.tokens.accessToken };
  });
  if ('token' in outcome) return outcome.token;
  if ('failed' in outcome) throw new ProviderHttpError('the token endpoint', null, 'refresh_failed', outcome.failed, false);
  if (!outcome.row.authError) await markAuthError(db, outcome.row, outcome.revoked);
  throw new MailboxAuthError(`The connected mailbox must be connected again: ${outcome.revoked}`);
}

/**
 * Runs a provider call with the mailbox's access token. A 401 means the provider did not take
 * the request: the token is refreshed and the call made once more; a second 401 is a revocation.
 */
export async function withAccess<T>(db: Tx, mailbox: Pick<MailboxRow, 'id' | 'userId' | 'provider'>, call: (accessToken: string) => Promise<T>): Promise<T> {
  try {
    return await call(await accessToken(db, mailbox.id));
  } catch (e) {
    if (!(e instanceof ProviderHttpError && e.status === 401)) throw e;
  }
  try {
    return await call(await accessToken(db, mailbox.id, { force: true }));
  } catch (e) {
    if (!(e instanceof ProviderHttpError && e.status === 401)) throw e;
    await markAuthError(db, mailbox, 'the provider refused a freshly refreshed access token');
    throw new MailboxAuthError('The connected mailbox must be connected again: the provider refuses its tokens');
  }
}
