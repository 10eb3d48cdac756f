import { eq, inArray, or } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { accounts, type AccountRow } from '@/db/schema';
import { badRequest, conflict, notFound } from '@/server/http/errors';
import { requestHost } from '@/server/http/public-origin';
import { siteOrigin } from './origin';

const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}(:\d{1,5})?$/, 'must be a host name such as app.example.org');

/** Console job: the host name the account's hosted app, SAML and SCIM answer on. */
export async function setHostedDomain(db: Db, accountId: string, domain: string) {
  const parsed = Domain.safeParse(domain);
  if (!parsed.success) throw badRequest(`--domain: ${parsed.error.issues[0].message}`);
  const [taken] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.hostedDomain, parsed.data));
  if (taken && taken.id !== accountId) throw conflict('--domain: already the hosted domain of another account');
  const [a] = await db.update(accounts).set({ hostedDomain: parsed.data }).where(eq(accounts.id, accountId)).returning();
  if (!a) throw notFound('Account');
  return { accountId, hostedDomain: parsed.data };
}

/** The account a hosted-app request is for: the host it names, or the only account when there is just one. */
export async function accountForHost(db: Db, host: string | null): Promise<AccountRow | null> {
  const name = (host ?? '').trim().toLowerCase();
  // The host as sent, or without its port, else the only account: one statement (every hosted
  // page starts here), both halves index reads: the accounts the host names, and any two, which
  // only tell whether there is exactly one account.
  const names = name ? [...new Set([name, name.replace(/:\d+$/, '')])] : [];
  const anyTwo = db.select({ id: accounts.id }).from(accounts).limit(2);
  const rows = await db
    .select()
    .from(accounts)
    .where(names.length ? or(inArray(accounts.hostedDomain, names), inArray(accounts.id, anyTwo)) : inArray(accounts.id, anyTwo));
  const hit = rows.find((a) => a.hostedDomain === name) ?? rows.find((a) => a.hostedDomain !== null && names.includes(a.hostedDomain));
  if (hit) return hit;
  // Nothing named: the rows are the two of anyTwo (the names matched none).
  return rows.length === 1 ? rows[0]! : null;
}

/**
 * Which hosted app a request is for: the account the request's host selects (requestHost: Host,
 * or X-Forwarded-Host behind a trusted proxy), with that app's configured origin. The host only
 * selects; the origin is the account's hosted domain or the public origin, never the header.
 * 404 when no account answers on this host.
 */
export async function hostedSite(db: Db, headers: Pick<Headers, 'get'>) {
  const account = await accountForHost(db, requestHost(headers));
  if (!account) throw notFound('Hosted app');
  const { origin, secure } = siteOrigin(account.hostedDomain);
  return { account, origin, secure };
}
