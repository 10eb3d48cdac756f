import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { mailboxes, users, type MailboxProvider, type MailboxRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { gmailProfile } from '@/server/channels/gmail/api';
import { gmailConfig } from '@/server/channels/gmail/config';
import { gmailExchangeCode } from '@/server/channels/gmail/oauth';
import { graphAddress } from '@/server/channels/graph/api';
import { graphConfig } from '@/server/channels/graph/config';
import { graphExchangeCode } from '@/server/channels/graph/oauth';
import { beginUrl, bindingCookie, mailboxCallbackUrl, redirect } from '@/server/channels/oauth';
import { bindingCookieName, consumeState, issueState, pkceVerifier } from '@/server/channels/oauth-state';
import { ProviderHttpError, type ProviderTokens } from '@/server/channels/providers';
import { reply } from '@/server/http/endpoint';
import { badRequest, forbidden } from '@/server/http/errors';
import { logger } from '@/server/logger';
import type { MailboxCallbackQuery } from './contracts';
import { presentMailbox } from './present';
import { retireMailbox } from './retire';
import { mailboxOfUser, showOnAssistants } from './store';
import { syncMailbox } from './sync';
import { fromTokenResponse, sealTokens } from './tokens';

/*
 * Connecting a user's own mailbox by OAuth, the way Slack and Teams connect: a start (the user's
 * credential, or the hosted app's session) issues a signed state and redirects the browser to
 * /api/oauth/begin, which binds the flow to that browser and sends it on to Google or Microsoft
 * with a PKCE challenge; the provider sends it back to /api/oauth/callback/{gmail|outlook}, where
 * the state is used once, in that browser, and the code is exchanged with the PKCE verifier. The
 * tokens are sealed, the user's own assistants show the mailbox, and the first poll runs at once.
 */

const PURPOSE = 'mailbox';

/** A start for the acting user; `returnTo` (an absolute URL of the hosted app) is where the browser goes once connected. */
export async function startMailboxConnect(db: Db, actor: UserActor, provider: MailboxProvider, requestUrl: string, returnTo: string | null = null): Promise<Response> {
  if (provider === 'gmail') gmailConfig();
  else graphConfig();
  const state = await issueState(db, { provider, purpose: PURPOSE, accountId: actor.accountId, userId: actor.user.id, target: returnTo ? { returnTo } : {} });
  return redirect(beginUrl(requestUrl, state));
}

type Connected = { address: string; cursor: string | null };

/** The mailbox's address (and for Gmail the history id new mail is polled from), read with the new access token. */
async function mailboxFacts(provider: MailboxProvider, accessToken: string): Promise<Connected> {
  if (provider === 'gmail') {
    const profile = await gmailProfile({ cfg: gmailConfig(), accessToken });
    return { address: profile.emailAddress.toLowerCase(), cursor: profile.historyId };
  }
  return { address: (await graphAddress({ cfg: graphConfig(), accessToken })).toLowerCase(), cursor: null };
}

/**
 * Stores the connection (one mailbox per user: a new one replaces the old). Reconnecting the same
 * mailbox keeps its cursor and subscription, so mail that arrived while it was refused is still
 * read; another mailbox starts from now, and the old one's subscription is removed.
 */
async function storeMailbox(db: Db, owner: { accountId: string; userId: string }, provider: MailboxProvider, tokens: ProviderTokens, facts: Connected, now: Date): Promise<MailboxRow> {
  const previous = await mailboxOfUser(db, owner.userId);
  const same = previous !== null && previous.provider === provider && previous.address === facts.address;
  if (previous && !same) await retireMailbox(db, previous, { revoke: false });
  const t = fromTokenResponse(tokens, null, now);
  const values = {
    provider,
    address: facts.address,
    tokens: await sealTokens(db, provider, t.tokens),
    tokenExpiresAt: t.expiresAt,
    scopes: t.scopes ?? '',
    authError: false,
    authErrorReason: null,
    syncLeaseUntil: null,
    lastSyncError: null,
    ...(same
      ? {}
      : { cursor: facts.cursor, subscriptionId: null, subscriptionExpiresAt: null, clientStateHash: null, lastSyncedAt: null, connectedAt: now }),
  };
  const [row] = await db
    .insert(mailboxes)
    .values({ accountId: owner.accountId, userId: owner.userId, cursor: facts.cursor, connectedAt: now, ...values })
    .onConflictDoUpdate({ target: mailboxes.userId, set: values })
    .returning();
  await showOnAssistants(db, row);
  return row;
}

function exchange(provider: MailboxProvider, code: string, verifier: string, redirectUri: string) {
  return provider === 'gmail' ? gmailExchangeCode(gmailConfig(), code, verifier, redirectUri) : graphExchangeCode(graphConfig(), code, verifier, redirectUri);
}

/** The provider sends the browser back: the state is used once, in the browser it was bound to; the code is exchanged with the flow's PKCE verifier. */
export async function finishMailboxConnect(db: Db, provider: MailboxProvider, q: z.infer<typeof MailboxCallbackQuery>, requestUrl: string, cookieHeader: string | null) {
  const state = await consumeState(db, q.state, provider, cookieHeader);
  const cleared = { 'Set-Cookie': bindingCookie(requestUrl, bindingCookieName(state.jti), '', 0) };
  const returnTo = state.purpose === PURPOSE ? (state.target?.returnTo ?? null) : null;
  const back = (outcome: string) => redirect(`${returnTo}${returnTo!.includes('?') ? '&' : '?'}mailbox=${outcome}`, cleared);
  if (state.purpose !== PURPOSE || !state.userId) throw badRequest('state: not a mailbox connection');
  if (q.error || !q.code) {
    if (returnTo) return back('denied');
    throw forbidden(`The connection was not approved${q.error ? `: ${q.error}` : ''}`);
  }
  const [user] = await db.select().from(users).where(and(eq(users.id, state.userId), eq(users.accountId, state.accountId)));
  if (!user || user.status !== 'active') throw forbidden('The user who started this connection can no longer connect a mailbox');

  const answer = await exchange(provider, q.code, await pkceVerifier(db, q.state), mailboxCallbackUrl(requestUrl, provider));
  if (!answer.ok) throw badRequest(`The provider refused the code: ${answer.error}`, {}, 'oauth_exchange_failed');
  let facts: Connected;
  try {
    facts = await mailboxFacts(provider, answer.tokens.access_token);
  } catch (e) {
    if (e instanceof ProviderHttpError) throw badRequest(`The mailbox could not be read: ${e.message}`, {}, 'provider_unreachable');
    throw e;
  }
  const now = new Date();
  const row = await storeMailbox(db, { accountId: state.accountId, userId: user.id }, provider, answer.tokens, facts, now);
  logger.info({ mailboxId: row.id, userId: user.id, provider }, 'mailbox connected');
  // The first poll (Microsoft: the change subscription too) right away; a failure is left to the next one.
  const first = await syncMailbox(db, row.id, now);
  if (first.error) logger.warn({ mailboxId: row.id, error: first.error }, 'mailbox: the first poll did not finish; the minute poll retries');
  if (returnTo) return back('connected');
  const fresh = (await mailboxOfUser(db, user.id)) ?? row;
  return reply(200, { ok: true as const, mailbox: presentMailbox(fresh) }, { ...cleared, 'Cache-Control': 'no-store' });
}
