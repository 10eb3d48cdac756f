import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { organizations, taskActivities, users } from '@/db/schema';
import { call, newAccount, newUser, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedReply } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';

/**
 * Model tiers of chats and tasks the agent creates itself (spec document 2, Model tiers): a
 * matching segment (user, then team, then organization), the organization's default, the
 * account's, `medium`; tasks created through the API keep their own order (no segment).
 */
const h = useRunHarness();
const { app, db, person, startTask, ended } = h;
type Person = Awaited<ReturnType<typeof person>>;

const titleOf = (req: ModelRequest): string | null => {
  const m = req.messages.find((x: any) => x.role === 'user' && typeof x.content === 'string' && x.content.startsWith('Task: '));
  return m ? (m.content as string).slice('Task: '.length).split('\n')[0] : null;
};
const tool = (name: string, args: unknown): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });

let n = 0;
/** A run of one of p's tasks creates a task (held for approval, so it does not run): that task's tier. */
async function agentTaskTier(p: Person): Promise<string> {
  const parent = `Parent ${++n}`;
  const child = `Child ${n}`;
  const script: Record<string, ScriptedReply[]> = { [parent]: [tool('create_task', { title: child, needsApproval: true }), tool('complete_task', { summary: 'done' })] };
  h.state.llm.setFallback((req) => {
    const title = titleOf(req);
    return (title && script[title]?.shift()) || { text: 'ok' };
  });
  const { taskId, runId } = await startTask(p, { title: parent });
  expect(await ended(runId)).toMatchObject({ status: 'finished' });
  const [act] = (await db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId))).filter((a) => a.toolName === 'create_task');
  const childId = (act.toolOutput as any).taskId;
  expect(childId, JSON.stringify(act.toolOutput)).toBeTruthy();
  const got = await call(app(), `/tasks/${childId}`, { key: p.key });
  expect(got.status).toBe(200);
  expect(got.body.task.createdBy).toBe('agent');
  return got.body.task.modelTier;
}

async function setup() {
  const acct = await newAccount(app());
  const org = await call(app(), '/organizations', { key: acct.key, body: { name: 'Org' } });
  expect(org.status).toBe(201);
  const orgId = org.body.organization.id as string;
  const p = await person(acct);
  await db().update(users).set({ organizationId: orgId, organizationRole: 'member' }).where(eq(users.id, p.id));
  const team = await call(app(), '/teams', { key: acct.key, body: { name: 'Team', ownerId: p.id } });
  expect(team.status, JSON.stringify(team.body)).toBe(201);
  const teamId = team.body.team.id as string;
  return { acct, orgId, teamId, p };
}

const segment = (acct: AccountFixture, body: Record<string, unknown>) => call(app(), '/model-tier-segments', { key: acct.key, body });

describe('tiers of tasks the agent creates', () => {
  it('resolve segment (user, then team, then organization), then organization, then account, then medium', async () => {
    const { acct, orgId, teamId, p } = await setup();
    expect(await agentTaskTier(p)).toBe('medium');

    expect((await call(app(), '/settings/model-tiers', { method: 'PATCH', key: acct.key, body: { task: 'high' } })).status).toBe(200);
    expect(await agentTaskTier(p)).toBe('high');

    expect((await call(app(), `/organizations/${orgId}/settings/model-tiers`, { method: 'PATCH', key: acct.key, body: { task: 'low' } })).status).toBe(200);
    expect(await agentTaskTier(p)).toBe('low');

    const byOrg = await segment(acct, { name: 'orgwide', task: 'ultra', organizationIds: [orgId] });
    expect(byOrg.status, JSON.stringify(byOrg.body)).toBe(201);
    expect(await agentTaskTier(p)).toBe('ultra');

    // A segment with only a chat default says nothing about tasks.
    expect((await segment(acct, { name: 'team-chat-only', chat: 'low', teamIds: [teamId] })).status).toBe(201);
    expect(await agentTaskTier(p)).toBe('ultra');

    expect((await segment(acct, { name: 'team', task: 'medium', teamIds: [teamId] })).status).toBe(201);
    expect(await agentTaskTier(p)).toBe('medium');

    const mine = await segment(acct, { name: 'me', task: 'high', userIds: [p.id] });
    expect(mine.status).toBe(201);
    expect(await agentTaskTier(p)).toBe('high');

    // Another member of the same team gets the team's segment, not the user's.
    const q = await person(acct);
    const joined = await call(app(), `/teams/${teamId}/members`, { key: acct.key, body: { userId: q.id } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(await agentTaskTier(q)).toBe('medium');

    // Removing the user from their segment falls back to the team's.
    expect((await call(app(), `/model-tier-segments/${mine.body.segment.id}`, { method: 'PATCH', key: acct.key, body: { userIds: [] } })).status).toBe(200);
    expect(await agentTaskTier(p)).toBe('medium');
    expect((await call(app(), `/model-tier-segments/${byOrg.body.segment.id}`, { method: 'DELETE', key: acct.key })).status).toBe(200);
  });

  it('an explicit modelTier of create_task wins, and tasks created through the API ignore segments', async () => {
    const { acct, orgId, p } = await setup();
    expect((await segment(acct, { name: 'org', task: 'ultra', organizationIds: [orgId] })).status).toBe(201);
    await db().update(organizations).set({ taskModelTier: 'low' }).where(eq(organizations.id, orgId));

    const viaApi = await call(app(), '/tasks', { key: p.key, body: { title: 'By hand', assistant: p.assistantId } });
    expect(viaApi.status).toBe(201);
    expect(viaApi.body.task.modelTier).toBe('low');

    const script: Record<string, ScriptedReply[]> = { Named: [tool('create_task', { title: 'Named child', needsApproval: true, modelTier: 'high' }), tool('complete_task', { summary: 'ok' })] };
    h.state.llm.setFallback((req) => (titleOf(req) && script[titleOf(req)!]?.shift()) || { text: 'ok' });
    const { taskId, runId } = await startTask(p, { title: 'Named' });
    await ended(runId);
    const [act] = (await db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId))).filter((a) => a.toolName === 'create_task');
    const child = await call(app(), `/tasks/${(act.toolOutput as any).taskId}`, { key: p.key });
    expect(child.body.task.modelTier).toBe('high');
  });
});
