import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { identifiers, mailOutbox, teamMemberships, users } from '@/db/schema';
import { ADMIN_CLI } from '@/server/audit/record';
import { addConsoleMember, removeConsoleMember } from '@/server/console/members';
import { setHostedDomain } from '@/server/hosted/accounts';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { admin } from '../helpers/admin-cli';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * `add-console-member` and `remove-console-member` (spec 6): the operator makes a user of the
 * account a console member (a user is made for an address nobody holds, so they can sign in like
 * everyone else), changes their role by adding again, and removes them. One JSON line each;
 * errors name the flag; each change is an audit event by admin_cli.
 */

const app = useTestServer();
const dbUrl = () => app().database.pool.options.connectionString as string;
const db = () => app().database.db;

describe('admin CLI: console members', () => {
  it('adds a new person as a user of the account and a developer, who then reaches the console; removes them', async () => {
    const acct = await newAccount(app(), 'Console CLI');
    const host = `console-cli-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(db(), acct.accountId, host);

    const added = await admin(dbUrl(), 'add-console-member', '--account', acct.accountId, '--email', ' Dev.Person@Example.com ');
    expect(added.code, added.stdout).toBe(0);
    expect(added.stdout.trim().split('\n')).toHaveLength(1);
    expect(added.out).toMatchObject({ ok: true, created: true, userCreated: true, member: { accountId: acct.accountId, email: 'dev.person@example.com', role: 'developer', addedBy: 'admin_cli' } });
    const userId = added.out.member.userId as string;
    // A user like any other: a verified email, a team of their own, no assistant; they can get a sign-in link.
    const [id] = await db().select().from(identifiers).where(and(eq(identifiers.userId, userId), eq(identifiers.type, 'email')));
    expect(id).toMatchObject({ value: 'dev.person@example.com', verified: true });
    expect(await db().select().from(teamMemberships).where(and(eq(teamMemberships.userId, userId), eq(teamMemberships.status, 'active')))).toHaveLength(1);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.to, 'dev.person@example.com'));
    expect(mail!.text).toContain(`https://${host}/console`);

    const [row] = await db().select().from(users).where(eq(users.id, userId));
    const cookie = (await sessionSetCookie(db(), row!, 'email', true)).split(';')[0]!;
    const browser = appRouter.createCaller(await portalContext(db(), new Headers({ host, cookie })));
    expect(await browser.console.me()).toMatchObject({ role: 'developer', email: 'dev.person@example.com' });

    const listed = await admin(dbUrl(), 'console-members', '--account', acct.accountId);
    expect(listed.out.members).toEqual([expect.objectContaining({ userId, role: 'developer' })]);

    const removed = await admin(dbUrl(), 'remove-console-member', '--account', acct.accountId, '--email', 'dev.person@example.com');
    expect(removed.code, removed.stdout).toBe(0);
    expect(removed.out).toMatchObject({ ok: true, member: { userId, removed: true } });
    await expect(browser.console.me()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The user and what they hold stay.
    expect(await db().select().from(users).where(eq(users.id, userId))).toHaveLength(1);

    const events = (await call(app(), '/audit-events?limit=100', { key: acct.key })).body.events as any[];
    expect(events.filter((e) => e.action.startsWith('console_member.')).map((e) => [e.action, e.actor])).toEqual([
      ['console_member.removed', { type: 'admin_cli', id: null }],
      ['console_member.added', { type: 'admin_cli', id: null }],
    ]);
  }, 120_000);

  it('an existing user keeps their user; adding again with --role changes the role; errors are one JSON line naming the flag', async () => {
    const acct = await newAccount(app(), 'Console CLI roles');
    const person = await newUser(app(), acct);
    const first = await admin(dbUrl(), 'add-console-member', '--account', acct.accountId, '--email', person.email, '--role', 'viewer');
    expect(first.out).toMatchObject({ created: true, userCreated: false, member: { userId: person.id, role: 'viewer' } });
    const again = await admin(dbUrl(), 'add-console-member', '--account', acct.accountId, '--email', person.email, '--role', 'owner');
    expect(again.out).toMatchObject({ created: false, member: { userId: person.id, role: 'owner' } });
    const badRole = await admin(dbUrl(), 'add-console-member', '--account', acct.accountId, '--email', person.email, '--role', 'admin');
    expect(badRole.code).toBe(1);
    expect(badRole.stdout.trim().split('\n')).toHaveLength(1);
    expect(badRole.out).toMatchObject({ ok: false, status: 400, error: expect.stringContaining('--role') });
    // The other refusals through the same service the command calls (each CLI start costs seconds).
    expect(await addConsoleMember(db(), ADMIN_CLI, { accountId: acct.accountId, email: person.email, role: 'owner' })).toMatchObject({ created: false, member: { role: 'owner' } });
    await expect(addConsoleMember(db(), ADMIN_CLI, { accountId: acct.accountId, email: 'nobody' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('--email') });
    await expect(addConsoleMember(db(), ADMIN_CLI, { accountId: 'nope', email: 'a@example.com' })).rejects.toMatchObject({ status: 404 });
    await expect(removeConsoleMember(db(), ADMIN_CLI, { accountId: acct.accountId, email: 'stranger@example.com' })).rejects.toMatchObject({ status: 404 });
    // The operator may remove the last owner (the console itself may not).
    expect((await admin(dbUrl(), 'remove-console-member', '--account', acct.accountId, '--email', person.email)).out).toMatchObject({ ok: true });
    const events = (await call(app(), '/audit-events?action=console_member.role_changed', { key: acct.key })).body.events as any[];
    expect(events).toEqual([expect.objectContaining({ actor: { type: 'admin_cli', id: null }, changes: { before: expect.objectContaining({ role: 'viewer' }), after: expect.objectContaining({ role: 'owner' }) } })]);
  }, 120_000);
});
