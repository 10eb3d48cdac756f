import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Db } from '@/db/client';
import { calendarConnections, calendars, mailboxes, users, type CalendarConnectionRow, type CalendarGrantProvider } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { gmailConfig } from '@/server/channels/gmail/config';
import { GOOGLE_CALENDAR_SCOPES, gmailExchangeCode } from '@/server/channels/gmail/oauth';
import { graphAddress } from '@/server/channels/graph/api';
import { graphConfig } from '@/server/channels/graph/config';
import { GRAPH_CALENDAR_SCOPES, graphExchangeCode } from '@/server/channels/graph/oauth';
import { beginUrl, bindingCookie, mailboxCallbackUrl, redirect } from '@/server/channels/oauth';
import { bindingCookieName, consumeState, issueState, pkceVerifier, type MailboxOAuthProvider } from '@/server/channels/oauth-state';
import { ProviderHttpError } from '@/server/channels/providers';
import { reply } from '@/server/http/endpoint';
import { badRequest, forbidden } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { calendarAccessGranted } from './access';
import { googleCalendarApiUrl, googleCalendarList } from './google/api';
import { storeGrant } from './grants';
import { providerForGrant } from './oauth-providers';

/*
 * Connecting Google or Microsoft 365 calendars by OAuth, through the mailbox connection's own
 * client and flow (server/mailboxes/connect.ts): a start issues a signed state (purpose
 * `calendar`), /api/oauth/begin binds it to the browser and sends it to the provider's consent
 * page asking for the calendar scopes (with the connected mailbox's address as the login hint, and
 * for Google `include_granted_scopes`, so a user with their mailbox connected only consents to
 * calendars: one step), and the provider sends it back to the mailbox's own callback
 * (/api/oauth/callback/gmail or /outlook: no new redirect URI to register), which hands a
 * calendar state here. The grant is stored sealed, and the connection and its calendars recorded
 * for the sync (server/calendars/, cal1's) to read.
 */

export const CALENDAR_PURPOSE = 'calendar';

const clientOf = (provider: CalendarGrantProvider): MailboxOAuthProvider => (provider === 'google' ? 'gmail' : 'outlook');
const grantProviderOf = (client: MailboxOAuthProvider): CalendarGrantProvider => (client === 'gmail' ? 'google' : 'microsoft');

/**
 * Whether a callback's state names a calendar flow. Read without verifying, only to choose the
 * handler: the calendar handler verifies the state (signature, binding, single use) itself.
 */
export function isCalendarState(token: string): boolean {
  try {
    return decodeJwt(token).purpose === CALENDAR_PURPOSE;
  } catch {
    return false;
  }
}

/** A start for the acting user; `returnTo` (an absolute URL of the hosted app) is where the browser goes once connected. */
export async function startCalendarConnect(db: Db, actor: UserActor, provider: CalendarGrantProvider, requestUrl: string, returnTo: string | null = null): Promise<Response> {
  if (provider === 'google') gmailConfig();
  else graphConfig();
  const client = clientOf(provider);
  // The account of the mailbox already connected with this client is the one to ask: its address is the login hint.
  const [mailbox] = await db
    .select({ address: mailboxes.address })
    .from(mailboxes)
    .where(and(eq(mailboxes.userId, actor.user.id), eq(mailboxes.provider, client)));
  const target: Record<string, string> = { ...(returnTo ? { returnTo } : {}), ...(mailbox ? { loginHint: mailbox.address } : {}) };
  const state = await issueState(db, { provider: client, purpose: CALENDAR_PURPOSE, accountId: actor.accountId, userId: actor.user.id, target });
  return redirect(beginUrl(requestUrl, state));
}

type Callback = { code?: string; state: string; error?: string; error_description?: string };

const exchange = (client: MailboxOAuthProvider, code: string, verifier: string, redirectUri: string) =>
  client === 'gmail' ? gmailExchangeCode(gmailConfig(), code, verifier, redirectUri) : graphExchangeCode(graphConfig(), code, verifier, redirectUri, GRAPH_CALENDAR_SCOPES);

/** Whether the token answer grants calendars (Google lets a user untick a scope on its consent page); an answer that names no scopes is taken at its word. */
function grantsCalendars(client: MailboxOAuthProvider, scope: string | undefined): boolean {
  if (!scope) return true;
  const granted = scope.split(/\s+/);
  return client === 'gmail' ? GOOGLE_CALENDAR_SCOPES.every((s) => granted.includes(s)) : granted.some((s) => s === 'Calendars.ReadWrite' || s.endsWith('/Calendars.ReadWrite'));
}

/** The provider account's address: Google's primary calendar is named by it; Microsoft's /me says it. */
async function accountAddress(client: MailboxOAuthProvider, accessToken: string): Promise<string> {
  if (client === 'outlook') return (await graphAddress({ cfg: graphConfig(), accessToken })).toLowerCase();
  const list = await googleCalendarList({ apiUrl: googleCalendarApiUrl(), accessToken });
  const primary = list.find((c) => c.primary);
  if (!primary) throw new ProviderHttpError('Google Calendar', 200, 'no_primary', 'Google Calendar listed no primary calendar for this account', true);
  return primary.id.toLowerCase();
}

/** The connection of a grant (one per grant: connecting the same account again keeps it and its calendars' sync state). */
async function connectionForGrant(db: Db, owner: { accountId: string; userId: string }, provider: CalendarGrantProvider, grantId: string, address: string): Promise<CalendarConnectionRow> {
  const [existing] = await db.select().from(calendarConnections).where(and(eq(calendarConnections.userId, owner.userId), eq(calendarConnections.grantId, grantId)));
  if (existing) {
    const [row] = await db.update(calendarConnections).set({ status: 'active', lastSyncError: null, failingSince: null }).where(eq(calendarConnections.id, existing.id)).returning();
    return row;
  }
  // The account's address is shown as the connection's username: which Google or Microsoft account it is.
  const [row] = await db.insert(calendarConnections).values({ accountId: owner.accountId, userId: owner.userId, provider, grantId, username: address }).returning();
  return row;
}

/** The provider's calendars recorded on the connection (new ones added, names and access kept current; sync cursors untouched). */
async function recordCalendars(db: Db, connection: CalendarConnectionRow, list: Awaited<ReturnType<ReturnType<typeof providerForGrant>['listCalendars']>>) {
  for (const c of list) {
    const values = { name: c.name, color: c.color, timezone: c.timezone, readOnly: c.readOnly, primary: c.primary };
    await db
      .insert(calendars)
      .values({ connectionId: connection.id, userId: connection.userId, remoteId: c.remoteId, ...values })
      .onConflictDoUpdate({ target: [calendars.connectionId, calendars.remoteId], set: values });
  }
}

/** The provider sends the browser back with a calendar state: used once, in the browser it was bound to; the code exchanged with the flow's PKCE verifier. */
export async function finishCalendarConnect(db: Db, client: MailboxOAuthProvider, q: Callback, requestUrl: string, cookieHeader: string | null) {
  const state = await consumeState(db, q.state, client, cookieHeader);
  const cleared = { 'Set-Cookie': bindingCookie(requestUrl, bindingCookieName(state.jti), '', 0) };
  const returnTo = state.purpose === CALENDAR_PURPOSE ? (state.target?.returnTo ?? null) : null;
  const back = (outcome: string) => redirect(`${returnTo}${returnTo!.includes('?') ? '&' : '?'}calendar=${outcome}`, cleared);
  if (state.purpose !== CALENDAR_PURPOSE || !state.userId) throw badRequest('state: not a calendar connection');
  if (q.error || !q.code) {
    if (returnTo) return back('denied');
    throw forbidden(`The connection was not approved${q.error ? `: ${q.error}` : ''}`);
  }
  const [user] = await db.select().from(users).where(and(eq(users.id, state.userId), eq(users.accountId, state.accountId)));
  if (!user || user.status !== 'active') throw forbidden('The user who started this connection can no longer connect a calendar');

  const answer = await exchange(client, q.code, await pkceVerifier(db, q.state), mailboxCallbackUrl(requestUrl, client));
  if (!answer.ok) throw badRequest(`The provider refused the code: ${answer.error}`, {}, 'oauth_exchange_failed');
  if (!grantsCalendars(client, answer.tokens.scope)) {
    if (returnTo) return back('denied');
    throw forbidden('The calendar permission was not granted', 'calendar_scope_not_granted');
  }
  const provider = grantProviderOf(client);
  const owner = { accountId: state.accountId, userId: user.id };
  let address: string;
  try {
    address = await accountAddress(client, answer.tokens.access_token);
  } catch (e) {
    if (e instanceof ProviderHttpError) throw badRequest(`The calendar could not be read: ${e.message}`, {}, 'calendar_unreachable');
    throw e;
  }
  const grant = await storeGrant(db, owner, provider, address, answer.tokens);
  const connection = await connectionForGrant(db, owner, provider, grant.id, address);
  try {
    await recordCalendars(db, connection, await providerForGrant(db, grant).listCalendars());
  } catch (e) {
    // The grant works (the address was read with it); a list that failed now is listed again by the next sync.
    logger.warn({ err: e, connectionId: connection.id }, 'calendar: the calendars could not be listed right after connecting');
    await db.update(calendarConnections).set({ lastSyncError: (e as Error).message.slice(0, 500) }).where(eq(calendarConnections.id, connection.id));
  }
  logger.info({ connectionId: connection.id, userId: user.id, provider }, 'calendar connected');
  // Tasks that waited for a calendar go on (server/calendars/access.ts).
  await calendarAccessGranted(db, user.id);
  if (returnTo) return back('connected');
  return reply(200, { ok: true as const, connection: await presentOAuthConnection(db, connection.id) }, { ...cleared, 'Cache-Control': 'no-store' });
}

/** The connection as GET /calendar-connections shows one (spec 6): no secret, no token. */
export async function presentOAuthConnection(db: Db, connectionId: string) {
  const [c] = await db.select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
  const list = await db.select().from(calendars).where(eq(calendars.connectionId, connectionId));
  return {
    id: c.id,
    provider: c.provider,
    url: c.url,
    username: c.username,
    status: c.status,
    calendars: list.map((k) => ({ id: k.id, name: k.name, color: k.color, readOnly: k.readOnly, primary: k.primary })),
    lastSyncedAt: c.lastSyncedAt?.toISOString() ?? null,
    lastSyncError: c.lastSyncError,
  };
}
