import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { executorRuns, memories, taskRuns, tasks, type WaitingOnContact } from '@/db/schema';
import { TaskDetailEnvelope } from '@/server/tasks/contracts';
import { composeServices } from '@/server/compose';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedModel, ScriptedReply } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';

composeServices();

/*
 * What lower areas ask the tasks area (server/compose/area-hooks.ts): releasing an assistant counts and
 * hands on its open tasks, a contact merge moves the tasks waiting on the merged contact; and what
 * happens to a user's tasks when they change teams or are deleted, through real runs (the built-in
 * executor driving the production task-run function against the scripted model).
 */
const h = useRunHarness();
const { app, db, person, createTask, startTask, taskRow, ended, until } = h;
let llm: ScriptedModel;
beforeAll(() => {
  llm = h.state.llm;
});

type Person = Awaited<ReturnType<typeof person>>;

async function hire(p: Person, name: string) {
  const res = await call(app(), `/users/${p.id}/assistants`, { key: p.key, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.assistant.id as string;
}

const release = (p: Person, assistantId: string, transfer = false) =>
  call(app(), `/users/${p.id}/assistants/${assistantId}${transfer ? '?transfer=primary' : ''}`, { method: 'DELETE', key: p.key });

const readTask = async (p: Person, taskId: string) => TaskDetailEnvelope.parse((await call(app(), `/tasks/${taskId}`, { key: p.key })).body).task;

/** A model reply that waits for the test to let it go: the run is mid model call meanwhile. */
function gate(reply: ScriptedReply) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { script: async (_: ModelRequest) => (await opened, reply), open };
}

const systemOf = (r: ModelRequest) => String(r.messages[0]?.content ?? '');
const sentText = (r: ModelRequest) => r.messages.map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

/** The executor's run of a task run, once it is over (completed, failed or cancelled). */
const executorRunEnded = (runId: string) =>
  until(async () => {
    const [r] = await db()
      .select()
      .from(executorRuns)
      .where(sql`${executorRuns.event}->'data'->>'runId' = ${runId}`);
    return r && ['completed', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 30_000);

describe('releasing an assistant with open tasks', () => {
  it('is 409 while it has open tasks; transfer=primary hands the open ones to the primary, ended ones stay', async () => {
    const a = await person(await newAccount(app()));
    const bob = await hire(a, 'Bob');
    const pending = await createTask(a, { assistant: bob });
    const stopped = await createTask(a, { assistant: bob });
    expect((await call(app(), `/tasks/${stopped}/stop`, { key: a.key, body: {} })).status).toBe(200);
    const scheduled = await createTask(a, { assistant: bob, status: 'scheduled', scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    const done = await createTask(a, { assistant: bob });
    expect((await call(app(), `/tasks/${done}/mark-done`, { key: a.key, body: {} })).status).toBe(200);
    const archived = await createTask(a, { assistant: bob });
    expect((await call(app(), `/tasks/${archived}`, { method: 'PUT', key: a.key, body: { status: 'archived' } })).status).toBe(200);

    const refused = await release(a, bob);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toContain('transfer=primary');
    for (const id of [pending, stopped, scheduled, done, archived]) expect((await readTask(a, id)).assistant).toBe(bob);

    const moved = await release(a, bob, true);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    for (const id of [pending, stopped, scheduled]) expect(await readTask(a, id)).toMatchObject({ assistant: a.assistantId });
    expect(await readTask(a, stopped)).toMatchObject({ status: 'on_hold' });
    for (const id of [done, archived]) expect((await readTask(a, id)).assistant).toBe(bob);
    const roster = await call(app(), `/users/${a.id}/assistants`, { key: a.key });
    expect(roster.body.assistants.map((x: any) => x.id)).toEqual([a.assistantId]);

    // Only ended tasks: nothing to hand on, released without transfer.
    const cy = await hire(a, 'Cy');
    const finished = await createTask(a, { assistant: cy });
    expect((await call(app(), `/tasks/${finished}/mark-done`, { key: a.key, body: {} })).status).toBe(200);
    expect((await release(a, cy)).status).toBe(200);
  });

  it('a run in flight goes on under the primary assistant', async () => {
    const a = await person(await newAccount(app()));
    const bob = await hire(a, 'Bob');
    const first = gate({ toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: 'Call the venue', status: 'pending' }] } }] });
    llm.enqueue(first.script, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Venue booked' } }] });
    const { taskId, runId } = await startTask(a, { assistant: bob });
    await until(async () => llm.requests.length === 1);

    expect((await release(a, bob, true)).status).toBe(200);
    first.open();
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', assistantId: a.assistantId, summary: 'Venue booked' });
    expect(llm.requests).toHaveLength(2);
    expect(systemOf(llm.requests[0])).toContain('You are Bob');
    expect(systemOf(llm.requests[1])).toContain('You are Ada');
  });
});

describe('merging contacts', () => {
  it('moves the owner’s tasks waiting on the merged contact to the kept one, each entry keeping its address', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const contact = async (p: Person, email: string) => {
      const res = await call(app(), '/contacts', { key: p.key, body: { email, name: email.split('@')[0] } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.contact.id as string;
    };
    const keep = await contact(a, 'sam@venue.example');
    const merged = await contact(a, 'samuel@venue.example');
    const third = await contact(a, 'kim@caterer.example');
    const waitOn = async (taskId: string, list: WaitingOnContact[]) => db().update(tasks).set({ waitingOnContacts: list }).where(eq(tasks.id, taskId));

    const waiting = await createTask(a);
    await waitOn(waiting, [
      { email: 'kim@caterer.example', name: 'kim', contactId: third },
      { email: 'samuel@venue.example', name: 'samuel', contactId: merged },
      { email: 'someone@else.example', name: null, contactId: null },
    ]);
    const untouched = await createTask(a);
    await waitOn(untouched, [{ email: 'kim@caterer.example', name: 'kim', contactId: third }]);
    // Another user's task naming the same id (it can only come from a bug or a forged row): not the merge's business.
    const foreign = await createTask(b);
    await waitOn(foreign, [{ email: 'samuel@venue.example', name: null, contactId: merged }]);

    const res = await call(app(), `/contacts/${keep}/merge`, { key: a.key, body: { mergeContactId: merged } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    expect((await readTask(a, waiting)).waitingOnContacts).toEqual([
      { email: 'kim@caterer.example', name: 'kim', contactId: third },
      { email: 'samuel@venue.example', name: 'samuel', contactId: keep },
      { email: 'someone@else.example', name: null, contactId: null },
    ]);
    expect((await readTask(a, untouched)).waitingOnContacts).toEqual([{ email: 'kim@caterer.example', name: 'kim', contactId: third }]);
    expect((await readTask(b, foreign)).waitingOnContacts).toEqual([{ email: 'samuel@venue.example', name: null, contactId: merged }]);
  });
});

describe('a user’s tasks when they change teams or are deleted', () => {
  async function member(acct: AccountFixture, teamId?: string) {
    const u = await newUser(app(), acct, { teamId });
    const key = await userKey(app(), acct, u.id);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    return { ...u, key, assistantId: hired.body.assistant.id as string };
  }
  async function teamMemory(p: { key: string }, teamId: string, content: string) {
    const res = await call(app(), '/memories', { key: p.key, body: { content, scope: 'team', team: teamId } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }

  it('a user moved to another team keeps their open task; its next run sees the new team’s memories, not the old one’s', async () => {
    const acct = await newAccount(app());
    const oldLead = await member(acct);
    const newLead = await member(acct);
    const a = await member(acct, oldLead.teamId);
    await teamMemory(oldLead, oldLead.teamId, 'Old team: book the blue room');
    await teamMemory(newLead, newLead.teamId, 'New team: standup at ten');

    llm.enqueue({ text: 'Which day?' }, { text: 'Booked for Tuesday.' });
    const before = await startTask(a, {}, 'Book a room');
    await ended(before.runId);
    expect(sentText(llm.requests[0])).toContain('Old team: book the blue room');
    expect(sentText(llm.requests[0])).not.toContain('New team: standup at ten');

    const moved = await call(app(), `/teams/${newLead.teamId}/members`, { key: acct.key, body: { userId: a.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(await readTask(a, before.taskId)).toMatchObject({ status: 'awaiting_user_input', assistant: a.assistantId });

    const reply = await call(app(), `/tasks/${before.taskId}/process`, { key: a.key, body: { message: 'Tuesday' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    await ended(reply.body.process.executionId);
    expect(llm.requests).toHaveLength(2);
    expect(sentText(llm.requests[1])).toContain('New team: standup at ten');
    expect(sentText(llm.requests[1])).not.toContain('Old team: book the blue room');

    // Deprovisioned from the old team only: still a user with a team, the task stays theirs.
    const off = await call(app(), '/users/deprovision', { key: acct.key, body: { email: a.email, teamId: oldLead.teamId } });
    expect(off.body).toMatchObject({ ok: true, userDeleted: false });
    expect((await call(app(), `/tasks/${before.taskId}`, { key: a.key })).status).toBe(200);
  });

  it.each([
    ['DELETE /users/{userId}', async (acct: AccountFixture, u: { id: string; email: string; teamId: string }) => call(app(), `/users/${u.id}`, { method: 'DELETE', key: acct.key })],
    ['deprovisioned from their last team', async (acct: AccountFixture, u: { id: string; email: string; teamId: string }) => call(app(), '/users/deprovision', { key: acct.key, body: { email: u.email, teamId: u.teamId } })],
  ])('%s: a run in flight stops, its tool call never acts, and the tasks are gone', async (_, remove) => {
    const acct = await newAccount(app());
    const a = await member(acct);
    const waiting = gate({ toolCalls: [{ name: 'save_memory', arguments: { content: 'Written after deletion', tags: ['general'] } }] });
    llm.enqueue(waiting.script);
    llm.setFallback({ text: 'should never be asked' });
    const { taskId, runId } = await startTask(a, {}, 'Remember this');
    const other = await createTask(a);
    await until(async () => llm.requests.length === 1);

    const removed = await remove(acct, a);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    waiting.open();

    const finished = await executorRunEnded(runId);
    expect(finished.status).toBe('completed');
    expect(llm.requests).toHaveLength(1);
    expect(await db().select().from(memories).where(eq(memories.content, 'Written after deletion'))).toEqual([]);
    expect(await db().select().from(tasks).where(eq(tasks.userId, a.id))).toEqual([]);
    expect(await db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId))).toEqual([]);
    expect(await taskRow(other)).toBeUndefined();
    expect((await call(app(), `/tasks/${taskId}`, { key: acct.key })).status).toBe(404);
  });
});
