import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, auditEvents } from '@/db/schema';
import { appRouter } from '@/server/trpc/app-router';
import { newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { codeOf, consoleWorld } from './console-helpers';

/*
 * Who reaches the console (spec 6): its members only, by role. A viewer reads every page and
 * changes nothing (the server refuses each change, not only the page); a developer changes the
 * account's settings; only an owner manages console members, and the last owner stays.
 */

const app = useTestServer();
const w = consoleWorld(app);

type Procedure = { _def: { type: 'query' | 'mutation' } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);
const consoleMutations = procedures.filter(([name, p]) => name.startsWith('console.') && p._def.type === 'mutation').map(([name]) => name);
const OWNER_ONLY = ['console.addMember', 'console.setMemberRole', 'console.removeMember'];

/** Calls a procedure of the router by its dotted name, with `input`. */
function callByName(api: unknown, name: string, input: unknown): Promise<unknown> {
  const fn = name.split('.').reduce<any>((at, part) => at[part], api);
  return fn(input);
}

describe('console roles', () => {
  it('finds the console’s changes (the control: the list below is not empty)', () => {
    expect(consoleMutations).toEqual(expect.arrayContaining(['console.settings.setKillSwitch', 'console.access.createKey', 'console.webhooks.resend', 'console.channels.fulfilPhoneLine', ...OWNER_ONLY]));
    expect(consoleMutations.length).toBeGreaterThanOrEqual(25);
  });

  it('a viewer reads the pages’ data but every change is FORBIDDEN, and nothing is recorded or changed', async () => {
    const acct = await w.hostedAccount('Viewer co');
    const viewer = await w.member(acct, 'viewer');
    expect(await viewer.api.console.me()).toMatchObject({ role: 'viewer', email: viewer.email, account: { id: acct.accountId } });
    await viewer.api.console.overview();
    await viewer.api.console.settings.models();
    await viewer.api.console.access.keys();
    await viewer.api.console.limits.budgets();
    await viewer.api.console.webhooks.list();
    await viewer.api.console.audit.list();
    await viewer.api.console.members();

    const before = await w.db().select().from(auditEvents).where(eq(auditEvents.accountId, acct.accountId));
    for (const name of consoleMutations) {
      expect(await codeOf(callByName(viewer.api, name, {})), name).toBe('FORBIDDEN:console_role_required');
    }
    // Even a well-formed change is refused before its service runs.
    expect(await codeOf(viewer.api.console.settings.setKillSwitch({ engaged: true }))).toBe('FORBIDDEN:console_role_required');
    const [row] = await w.db().select({ killSwitch: accounts.killSwitch }).from(accounts).where(eq(accounts.id, acct.accountId));
    expect(row!.killSwitch).toBe(false);
    const after = await w.db().select().from(auditEvents).where(eq(auditEvents.accountId, acct.accountId));
    expect(after.length).toBe(before.length);
  });

  it('a developer changes settings but not console members; an owner manages members', async () => {
    const acct = await w.hostedAccount('Dev co');
    const dev = await w.member(acct, 'developer');
    expect((await dev.api.console.settings.setKillSwitch({ engaged: false })).killSwitch).toBe(false);
    for (const name of OWNER_ONLY) expect(await codeOf(callByName(dev.api, name, {})), name).toBe('FORBIDDEN:console_role_required');

    const owner = await w.member(acct, 'owner');
    const added = await owner.api.console.addMember({ email: 'New.Dev@Example.com', role: 'viewer' });
    expect(added).toMatchObject({ ok: true, created: true, userCreated: true, member: { email: 'new.dev@example.com', role: 'viewer' } });
    expect((await owner.api.console.members()).members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [dev.email, 'developer'],
      ['new.dev@example.com', 'viewer'],
    ]);
    expect((await owner.api.console.setMemberRole({ memberId: added.member.id, role: 'developer' })).member.role).toBe('developer');
    expect(await owner.api.console.removeMember({ memberId: added.member.id })).toMatchObject({ member: { id: added.member.id, removed: true } });
    expect((await owner.api.console.members()).members).toHaveLength(2);

    const events = await w.audited(acct, 'console_member.added');
    expect(events[0]).toMatchObject({ actor: { type: 'user', id: owner.userId, email: owner.email }, target: { type: 'console_member', id: added.member.id }, changes: { after: { email: 'new.dev@example.com', role: 'viewer' } } });
    expect((await w.audited(acct, 'console_member.role_changed'))[0]).toMatchObject({ actor: { id: owner.userId }, changes: { before: { role: 'viewer' }, after: { role: 'developer' } } });
    expect((await w.audited(acct, 'console_member.removed'))[0]).toMatchObject({ actor: { id: owner.userId }, target: { id: added.member.id } });
    // Bad input names the field.
    expect(await codeOf(owner.api.console.addMember({ email: 'not an address', role: 'viewer' }))).toBe('BAD_REQUEST:bad_request');
  });

  it('the last owner can neither leave nor step down (409); with a second owner they can', async () => {
    const acct = await w.hostedAccount('Owner co');
    const owner = await w.member(acct, 'owner');
    expect(await codeOf(owner.api.console.removeMember({ memberId: owner.memberId }))).toBe('CONFLICT:last_console_owner');
    expect(await codeOf(owner.api.console.setMemberRole({ memberId: owner.memberId, role: 'developer' }))).toBe('CONFLICT:last_console_owner');
    const second = await owner.api.console.addMember({ email: `second-owner-${Date.now()}@example.com`, role: 'owner' });
    expect(second.member.role).toBe('owner');
    expect((await owner.api.console.setMemberRole({ memberId: owner.memberId, role: 'developer' })).member.role).toBe('developer');
    // Now a developer: the console refuses them members' changes at once.
    expect(await codeOf(owner.api.console.removeMember({ memberId: second.member.id }))).toBe('FORBIDDEN:console_role_required');
  });

  it('a user who is not a member gets NOT_FOUND; signed out is UNAUTHORIZED; membership answers null, never an error', async () => {
    const acct = await w.hostedAccount('Outsider co');
    const person = await newUser(app(), acct);
    const outsider = await w.browser(acct.host, person.id);
    expect(await outsider.console.membership()).toBeNull();
    expect(await codeOf(outsider.console.overview())).toBe('NOT_FOUND');
    expect(await codeOf(outsider.console.settings.setKillSwitch({ engaged: true }))).toBe('NOT_FOUND');
    const nobody = await w.browser(acct.host, null);
    expect(await nobody.console.membership()).toBeNull();
    expect(await codeOf(nobody.console.overview())).toBe('UNAUTHORIZED');
    const member = await w.member(acct, 'viewer');
    expect(await member.api.console.membership()).toEqual({ role: 'viewer' });
  });

  it('a removed member loses the console at their next call', async () => {
    const acct = await w.hostedAccount('Removed co');
    const owner = await w.member(acct, 'owner');
    const dev = await w.member(acct, 'developer');
    await dev.api.console.overview();
    await owner.api.console.removeMember({ memberId: dev.memberId });
    expect(await codeOf(dev.api.console.overview())).toBe('NOT_FOUND');
    expect(await codeOf(dev.api.console.settings.setKillSwitch({ engaged: true }))).toBe('NOT_FOUND');
  });
});
