import { eq } from 'drizzle-orm';
import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import { users, type ConsoleRole } from '@/db/schema';
import { ADMIN_CLI } from '@/server/audit/record';
import { addConsoleMember } from '@/server/console/members';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, uniqueEmail } from '../helpers/client';
import type { TestServer } from '../helpers/server';

/*
 * What the console's tests share: an account on its own hosted domain, console members made as
 * the operator makes them (add-console-member's service), and the routers as a member's browser
 * on that domain reaches them (their session cookie, the Host header).
 */

export type HostedAccount = { accountId: string; key: string; host: string };

/** The procedure's answer as a short code: `resolved`, `CODE:error_code` for a refusal with a domain error, else the tRPC code. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}

export function consoleWorld(app: () => TestServer) {
  const db = () => app().database.db;

  async function hostedAccount(name: string): Promise<HostedAccount> {
    const acct = await newAccount(app(), name);
    const host = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.steward.test`;
    await setHostedDomain(db(), acct.accountId, host);
    return { ...acct, host };
  }

  async function cookieOf(userId: string) {
    const [row] = await db().select().from(users).where(eq(users.id, userId));
    return (await sessionSetCookie(db(), row!, 'email', true)).split(';')[0]!;
  }

  /** The routers as this user's browser on `host` reaches them (signed out without a user). */
  async function browser(host: string, userId: string | null) {
    const headers = new Headers({ host, ...(userId ? { cookie: await cookieOf(userId) } : {}) });
    return appRouter.createCaller(await portalContext(db(), headers));
  }

  /** A console member of the account with `role`, added as the operator adds one; their console (tRPC) and their user id. */
  async function member(acct: HostedAccount, role: ConsoleRole, email = uniqueEmail(role)) {
    const added = await addConsoleMember(db(), ADMIN_CLI, { accountId: acct.accountId, email, role });
    return { userId: added.member.userId, memberId: added.member.id, email: added.member.email, api: await browser(acct.host, added.member.userId) };
  }

  /** The account's audit events of `action`, newest first, through the REST API (what an account key reads). */
  async function audited(acct: HostedAccount, action: string) {
    const res = await call(app(), `/audit-events?action=${encodeURIComponent(action)}&limit=100`, { key: acct.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.events as Array<{ action: string; actor: { type: string; id: string | null; email?: string }; target: { type: string; id: string | null }; changes?: { before: any; after: any } }>;
  }

  /** An onboarded user of the account with an assistant of their own, reachable as them with the account key. */
  async function personWithAssistant(acct: HostedAccount) {
    const u = await newUser(app(), acct);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key: acct.key, as: u.email, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
    return { ...u, assistantId: hired.body.assistant.id as string };
  }

  return { db, hostedAccount, browser, member, audited, personWithAssistant };
}
