import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { tasks } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';

/**
 * Issue 46: a contact's `priority` (spec 2, Contact) orders the people the agent follows up with.
 * The task waits on three contacts named lowest priority first; when the follow-up alarm fires,
 * the run is told whom it still waits on, highest priority first (equal ones, and people who are
 * not contacts, in the order the agent named them).
 */
const h = useRunHarness();
const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();

it('the woken run lists the people it waits on by their contact priority, higher first', async () => {
  const a = await h.person(await newAccount(h.app()));
  const add = async (email: string, name: string, priority: number) => {
    const res = await call(h.app(), '/contacts', { key: a.key, body: { email, name, priority } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await add('ann@partner.example', 'Ann Low', 1);
  await add('eve@partner.example', 'Eve High', 9);
  await add('carl@partner.example', 'Carl Mid', 4);

  const people = ['ann@partner.example', 'stranger@elsewhere.example', 'carl@partner.example', 'eve@partner.example'];
  h.state.llm.enqueue({ text: 'Asked them all.', toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: people, followUpAt: inHours(24) } }] });
  const { taskId, runId } = await h.startTask(a, { title: 'Collect the signatures' });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });

  h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Followed up' } }] });
  await h.db().update(tasks).set({ alarmWakeAt: new Date(Date.now() - 1_000) }).where(eq(tasks.id, taskId));
  await h.state.wakeupsDue();
  const woken = await h.until(async () => h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes('Task: Collect the signatures'))[1] ?? null, 20_000);
  const system = String(woken.messages[0].content);
  const line = system.split('\n').find((l) => l.includes('You are still waiting to hear from'));
  expect(line).toBeDefined();
  expect(line).toContain('in order of the priority the user gave them');
  const order = ['Eve High', 'Carl Mid', 'Ann Low', 'stranger@elsewhere.example'].map((n) => line!.indexOf(n));
  expect(order.every((at) => at >= 0)).toBe(true);
  expect(order).toEqual([...order].sort((x, y) => x - y));
});
