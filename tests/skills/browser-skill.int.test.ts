import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, organizations, skills, users } from '@/db/schema';
import { peekWorkspace } from '@/server/workspace/browser/manager';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount, newUser } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';

/*
 * The browser skill (spec 2, Workspace controls: "browser automation also needs the browser skill
 * installed on the account"; POST /skills "other kinds exist"): installed on every new account and,
 * by migration 0061, on every account that existed before; one per account, installed and removed
 * with an account key alone; without it the browser tools refuse and no browser starts.
 */

const h = useRunHarness();
const { app, db, person, startTask, ended } = h;

const browserSkills = async (accountId: string) => db().select().from(skills).where(and(eq(skills.accountId, accountId), eq(skills.kind, 'browser')));

/** The tool result the model received for the first call named `name`. */
function toolResult(requests: ModelRequest[], name: string): string {
  const last = requests.at(-1)!.messages;
  const id = last.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls).find((c: any) => c.function.name === name)?.id;
  const result = last.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
  if (!result) throw new Error(`no result for ${name}`);
  return String(result.content);
}

describe('the browser skill', () => {
  it('is installed on a new account and listed like any skill, to the account and to its users', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const listed = await call(app(), '/skills', { key: acct.key });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    const [skill] = listed.body.skills;
    expect(skill).toMatchObject({ kind: 'browser', name: 'browser', title: 'Workspace browser', scope: 'account', ownerUserId: null, enabled: true, mcp: null, prompt: null, applies: null });
    expect(skill.id).toMatch(/^[0-9a-f]{24}$/);
    expect((await call(app(), '/skills', { key: a.key })).body.skills.map((s: { id: string }) => s.id)).toEqual([skill.id]);
    expect((await call(app(), '/skills?kind=browser', { key: a.key })).body.total).toBe(1);
    expect((await call(app(), `/skills/${skill.id}`, { key: a.key })).body.skill).toEqual(skill);
  });

  it('POST installs it once per account with the account key (200 with the installed one after); a user or organization caller gets 403', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const [installed] = await browserSkills(acct.accountId);

    const again = await call(app(), '/skills', { key: acct.key, body: { kind: 'browser' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.skill).toMatchObject({ id: installed.id, kind: 'browser', name: 'browser' });

    for (const opts of [{ key: a.key }, { key: acct.key, as: a.email }]) {
      const refused = await call(app(), '/skills', { ...opts, body: { kind: 'browser' } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body).toMatchObject({ error_code: 'account_key_required' });
      expect(refused.body.error).toContain('whole account');
    }
    // An organization key (an organization admin's) is not the account's either.
    const admin = await newUser(app(), acct);
    const [org] = await db().insert(organizations).values({ accountId: acct.accountId, name: 'Org' }).returning();
    await db().update(users).set({ organizationId: org.id, organizationRole: 'admin' }).where(eq(users.id, admin.id));
    const orgKey = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org' } });
    expect(orgKey.body.apiKey).toMatchObject({ organization: org.id, user: null });
    const byOrg = await call(app(), '/skills', { key: orgKey.body.apiKey.key, body: { kind: 'browser' } });
    expect(byOrg.status, JSON.stringify(byOrg.body)).toBe(403);
    expect(await browserSkills(acct.accountId)).toHaveLength(1);
  });

  it('only the account key changes or removes it; DELETE uninstalls it, POST installs it again (201, then 200)', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const [installed] = await browserSkills(acct.accountId);
    expect((await call(app(), `/skills/${installed.id}`, { key: a.key, method: 'DELETE' })).status).toBe(403);
    expect((await call(app(), `/skills/${installed.id}`, { key: a.key, method: 'PATCH', body: { enabled: false } })).status).toBe(403);
    const badPatch = await call(app(), `/skills/${installed.id}`, { key: acct.key, method: 'PATCH', body: { triggers: [{ on: 'manual' }] } });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error).toContain('triggers');
    const renamed = await call(app(), `/skills/${installed.id}`, { key: acct.key, method: 'PATCH', body: { title: 'Our browser' } });
    expect(renamed.body.skill).toMatchObject({ kind: 'browser', title: 'Our browser' });

    const removed = await call(app(), `/skills/${installed.id}`, { key: acct.key, method: 'DELETE' });
    expect(removed.body).toEqual({ ok: true, skill: { id: installed.id, deleted: true } });
    expect((await call(app(), '/skills', { key: a.key })).body.total).toBe(0);

    const made = await call(app(), '/skills', { key: acct.key, body: { kind: 'browser' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.skill).toMatchObject({ kind: 'browser', name: 'browser', title: 'Workspace browser', scope: 'account' });
    expect(made.body.skill.id).not.toBe(installed.id);
    const twice = await call(app(), '/skills', { key: acct.key, body: { kind: 'browser' } });
    expect(twice.status).toBe(200);
    expect(twice.body.skill.id).toBe(made.body.skill.id);
  });

  it('removed from the account: every browser tool refuses to the model, and no browser starts', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    const [installed] = await browserSkills(acct.accountId);
    expect((await call(app(), `/skills/${installed.id}`, { key: acct.key, method: 'DELETE' })).status).toBe(200);

    h.state.llm.enqueue(
      { toolCalls: [{ name: 'browser_open', arguments: { url: 'https://example.org/' } }] },
      { toolCalls: [{ name: 'browser_read', arguments: {} }] },
      { toolCalls: [{ name: 'complete_task', arguments: { summary: 'done' } }] },
    );
    const { runId } = await startTask(p, { title: 'Look it up' }, 'Find the opening hours');
    expect((await ended(runId)).status).toBe('finished');
    const requests = h.state.llm.requests;
    // Still offered (the task names no skills), refused when called.
    expect(requests[0].tools!.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(['browser_open', 'browser_read', 'browser_act']));
    expect(toolResult(requests, 'browser_open')).toContain('Browser automation is not installed on this account');
    expect(toolResult(requests, 'browser_read')).toContain('Browser automation is not installed on this account');
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });

  it('disabled: the browser tools refuse the same way', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    const [installed] = await browserSkills(acct.accountId);
    expect((await call(app(), `/skills/${installed.id}`, { key: acct.key, method: 'PATCH', body: { enabled: false } })).status).toBe(200);
    h.state.llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: 'https://example.org/' } }] }, { text: 'Could not.' });
    const { runId } = await startTask(p, { title: 'Look it up' });
    await ended(runId);
    expect(toolResult(h.state.llm.requests, 'browser_open')).toContain('not installed on this account');
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });

  // Last: the migration's statement gives a browser skill to every account of this file's database that has none.
  it('migration 0061 installs it on every account that existed before, with an id of newId’s shape, beside a skill already named browser', async () => {
    const plain = await newAccount(app(), 'Before');
    const clash = await newAccount(app(), 'Clash');
    await db().delete(skills).where(and(eq(skills.kind, 'browser'), sql`${skills.accountId} in (${plain.accountId}, ${clash.accountId})`));
    await db().insert(skills).values({ accountId: clash.accountId, kind: 'instructions', name: 'browser', instructions: 'Prefer Firefox.', applies: 'when_named' });
    const [{ n: before }] = await db().select({ n: sql<number>`count(*)::int` }).from(accounts);

    const file = readFileSync(path.join(import.meta.dirname, '../../db/migrations/0061_browser_skill.sql'), 'utf8');
    const statements = file.split('--> statement-breakpoint').map((s) => s.trim());
    const insert = statements.find((s) => s.includes('INSERT INTO "skills"'))!;
    await db().execute(sql.raw(insert));
    // Once is enough: running it again adds nothing.
    await db().execute(sql.raw(insert));

    const [p] = await browserSkills(plain.accountId);
    expect(p).toMatchObject({ name: 'browser', title: 'Workspace browser', ownerUserId: null, enabled: true, triggers: [] });
    expect(p.id).toMatch(/^[0-9a-f]{24}$/);
    const [c] = await browserSkills(clash.accountId);
    expect(c).toMatchObject({ name: 'workspace-browser', title: 'Workspace browser' });
    const [{ n: withBrowser }] = await db().select({ n: sql<number>`count(*)::int` }).from(skills).where(eq(skills.kind, 'browser'));
    expect(withBrowser).toBe(before);
    // The account key's POST answers the one the migration installed.
    const again = await call(app(), '/skills', { key: clash.key, body: { kind: 'browser' } });
    expect(again.status).toBe(200);
    expect(again.body.skill.id).toBe(c.id);
  });
});
