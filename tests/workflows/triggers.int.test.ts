import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { skills, taskRuns, tasks, workflowFirings, workflowTriggerState } from '@/db/schema';
import { runDueTriggers } from '@/server/workflows/triggers/scheduler';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount } from '../helpers/client';

/**
 * Workflow triggers end to end (issue 18): each firing creates a task of the owner through the
 * tasks service, which runs on the real engine against the scripted model. Time-driven triggers
 * are handed an explicit `now` (the scheduler's clock), so nothing waits for the wall clock.
 */
const h = useRunHarness();
const { app, db } = h;

type Person = Awaited<ReturnType<typeof h.person>>;
let named = 0;
async function workflow(p: Person, triggers: unknown[], extra: Record<string, unknown> = {}) {
  const r = await call(app(), '/skills', {
    key: p.key,
    body: { kind: 'workflow', name: `wf-${named++}`, title: 'Daily brief', description: 'Brief me', instructions: 'List what matters today.', triggers, ...extra },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.skill as { id: string; name: string };
}
const firingsOf = (skillId: string) => db().select().from(workflowFirings).where(eq(workflowFirings.skillId, skillId)).orderBy(workflowFirings.createdAt);
const stateOf = async (skillId: string, key: string) =>
  (await db().select().from(workflowTriggerState).where(and(eq(workflowTriggerState.skillId, skillId), eq(workflowTriggerState.triggerKey, key))))[0];
const taskOf = async (taskId: string) => (await db().select().from(tasks).where(eq(tasks.id, taskId)))[0];
const started = async (skillId: string) => (await firingsOf(skillId)).filter((f) => f.status === 'started');
const calendar = (p: Person, type: string, event: Record<string, unknown>) => call(app(), '/calendar/events', { key: p.key, body: { type, event } });
const minutes = (d: Date, n: number) => new Date(d.getTime() + n * 60_000);

describe('time-driven triggers', () => {
  it('cron fires once per scheduled time through the engine, creating a tagged task that runs', async () => {
    h.state.llm.setFallback({ text: 'Here is your brief.' });
    const p = await h.person(await newAccount(app()));
    const wf = await workflow(p, [{ on: 'cron', schedule: { frequency: 'daily', hour: 7, minute: 30 }, timezone: 'Europe/Paris' }]);
    const row = await stateOf(wf.id, '0');
    // 07:30 in Paris is 05:30 or 06:30 UTC.
    expect([5, 6]).toContain(row.nextAt!.getUTCHours());
    expect(row.nextAt!.getUTCMinutes()).toBe(30);

    const { inngest } = await import('@/inngest/client');
    const { events } = await import('@/inngest/events');
    const at = new Date(row.nextAt!.getTime() + 1_000);
    await inngest.send(events.workflowsDue.create({ now: at.toISOString() }));
    const [first] = await h.until(async () => ((await started(wf.id)).length === 1 ? started(wf.id) : null), 20_000);
    const task = await taskOf(first.taskId!);
    expect(task).toMatchObject({ userId: p.id, assistantId: p.assistantId, title: 'Daily brief', tags: [`workflow:${wf.id}`] });
    expect(task.description).toContain('List what matters today.');
    // The task runs: the model got the workflow's instructions.
    await h.until(async () => (h.state.llm.requests.some((r) => JSON.stringify(r.messages).includes('List what matters today.')) ? true : null), 20_000);
    // The same scheduled time does not fire twice; the next one is a day later.
    expect(await runDueTriggers(db(), at)).toBe(0);
    const next = await stateOf(wf.id, '0');
    expect(next.nextAt!.getTime() - row.nextAt!.getTime()).toBeGreaterThanOrEqual(23 * 3_600_000);
  });

  it('a minute due for a hundred workflows fires each once, in chunks, with the same rules', async () => {
    h.state.llm.setFallback({ text: 'Done.' });
    const p = await h.person(await newAccount(app()));
    const every = [{ on: 'cron', schedule: { frequency: 'minutely' } }];
    const plain: { id: string }[] = [];
    for (let i = 0; i < 104; i += 8) plain.push(...(await Promise.all(Array.from({ length: 8 }, () => workflow(p, every)))));
    const over = await workflow(p, every, { recurrenceEndsAt: new Date(Date.now() + 1_000).toISOString() });
    const limited = await workflow(p, every, { maxConcurrent: 1, overflowBehavior: 'drop' });
    const at = minutes(new Date(), 2);

    expect(await runDueTriggers(db(), at)).toBe(106);
    const all = await db().select().from(workflowFirings).where(eq(workflowFirings.userId, p.id));
    expect(all).toHaveLength(106);
    const byStatus = (s: string) => all.filter((f) => f.status === s);
    expect(byStatus('started')).toHaveLength(105);
    expect(byStatus('skipped').map((f) => [f.skillId, f.reason])).toEqual([[over.id, 'recurrence_ended']]);
    expect(new Set(all.map((f) => f.eventKey)).size).toBe(1);
    for (const wf of [...plain, limited]) {
      const [f] = await started(wf.id);
      const task = await taskOf(f!.taskId!);
      expect(task).toMatchObject({ userId: p.id, assistantId: p.assistantId, title: 'Daily brief', tags: [`workflow:${wf.id}`] });
      expect(task.description).toContain('"scheduledFor"');
    }
    const runs = await db().select().from(taskRuns).where(inArray(taskRuns.taskId, byStatus('started').map((f) => f.taskId!)));
    expect(runs).toHaveLength(105);
    // Counted once each; the same minute never fires again, and every trigger moved on.
    const [skill] = await db().select().from(skills).where(eq(skills.id, plain[0]!.id));
    expect(skill!.runCount).toBe(1);
    expect(await runDueTriggers(db(), at)).toBe(0);
    expect((await stateOf(plain[103]!.id, '0')).nextAt!.getTime()).toBeGreaterThan(at.getTime());
    // Leave nothing behind for the other tests: the workflows go, their runs end.
    for (const wf of [...plain, over, limited]) expect((await call(app(), `/skills/${wf.id}`, { method: 'DELETE', key: p.key })).status).toBe(200);
    const ids = runs.map((r) => r.id);
    await h.until(async () => {
      const open = await db().select({ id: taskRuns.id }).from(taskRuns).where(and(inArray(taskRuns.id, ids), inArray(taskRuns.status, ['queued', 'running'])));
      return open.length ? null : true;
    }, 150_000);
  }, 240_000);

  it('condition fires on the false→true edge only', async () => {
    h.state.llm.setFallback({ text: 'ok' });
    const p = await h.person(await newAccount(app()));
    const wf = await workflow(p, [{ on: 'condition', expression: 'tasksAwaitingUser >= 1', every: '5m' }]);
    const t0 = new Date();
    await runDueTriggers(db(), t0); // learns false
    expect(await firingsOf(wf.id)).toHaveLength(0);
    // Something now waits for the user: the condition becomes true.
    const { runId } = await h.startTask(p, { title: 'Needs me' });
    await h.ended(runId);
    await runDueTriggers(db(), minutes(t0, 6));
    expect(await started(wf.id)).toHaveLength(1);
    // Still true at the next poll: no second firing.
    await runDueTriggers(db(), minutes(t0, 12));
    expect(await firingsOf(wf.id)).toHaveLength(1);
  });

  it('inactivity fires when the expected event did not come within the window, and an event restarts the window', async () => {
    const p = await h.person(await newAccount(app()));
    const wf = await workflow(p, [{ on: 'inactivity', event: 'event.scheduled', within: '1h' }]);
    const now = new Date();
    // Half the window has passed when the expected event comes: the window starts again from it.
    await db()
      .update(workflowTriggerState)
      .set({ nextAt: minutes(now, 30), state: { windowStart: minutes(now, -30).toISOString() } })
      .where(and(eq(workflowTriggerState.skillId, wf.id), eq(workflowTriggerState.triggerKey, '0')));
    expect((await calendar(p, 'event.scheduled', { id: 'cal-1', startTime: minutes(now, 24 * 60).toISOString() })).status).toBe(202);
    await runDueTriggers(db(), minutes(now, 31));
    expect(await firingsOf(wf.id)).toHaveLength(0);
    // An hour without another one: it fires, and the next window begins.
    await runDueTriggers(db(), minutes(now, 61));
    expect((await firingsOf(wf.id)).map((f) => f.triggerKind)).toEqual(['inactivity']);
    expect((await stateOf(wf.id, '0')).nextAt!.getTime()).toBeGreaterThan(minutes(now, 120).getTime());
  });
});

describe('event-driven triggers', () => {
  it('webhook: a calendar event fires at once, or after delayOffset', async () => {
    const p = await h.person(await newAccount(app()));
    const now = await workflow(p, [{ on: 'webhook', event: 'event.scheduled', filter: { title: 'board' } }]);
    const later = await workflow(p, [{ on: 'webhook', event: 'event.scheduled', delayOffset: '10m' }]);
    const t0 = new Date();
    expect((await calendar(p, 'event.scheduled', { id: 'ev-1', title: 'Board meeting', startTime: minutes(t0, 120).toISOString() })).status).toBe(202);
    expect((await calendar(p, 'event.scheduled', { id: 'ev-2', title: 'Lunch', startTime: minutes(t0, 120).toISOString() })).status).toBe(202);
    // The filtered one fired for the board meeting only; the delayed one waits.
    expect((await started(now.id)).map((f) => f.payload.title)).toEqual(['Board meeting']);
    expect(await firingsOf(later.id)).toHaveLength(0);
    await runDueTriggers(db(), minutes(t0, 11));
    expect((await started(later.id)).map((f) => f.payload.id).sort()).toEqual(['ev-1', 'ev-2']);
    // The same event again fires nothing new.
    await calendar(p, 'event.scheduled', { id: 'ev-1', title: 'Board meeting', startTime: minutes(t0, 120).toISOString() });
    expect(await started(now.id)).toHaveLength(1);
  });

  it('timestamp: 30 minutes before startTime; a cancelled event withdraws it', async () => {
    const p = await h.person(await newAccount(app()));
    const wf = await workflow(p, [{ on: 'timestamp', field: 'startTime', offset: '-30m' }]);
    const start = new Date(Date.now() + 3 * 3_600_000);
    await calendar(p, 'event.scheduled', { id: 'kept', title: 'Flight', startTime: start.toISOString() });
    await calendar(p, 'event.scheduled', { id: 'gone', title: 'Call', startTime: start.toISOString() });
    await calendar(p, 'event.cancelled', { id: 'gone', startTime: start.toISOString() });
    await runDueTriggers(db(), minutes(start, -31));
    expect(await firingsOf(wf.id)).toHaveLength(0);
    await runDueTriggers(db(), minutes(start, -29));
    expect((await started(wf.id)).map((f) => f.payload.id)).toEqual(['kept']);
  });

  it('system: another workflow’s task completing fires it; compound and fires once both parts came', async () => {
    const p = await h.person(await newAccount(app()));
    const first = await workflow(p, [{ on: 'manual' }], { instructions: 'Step one of two.' });
    const follow = await workflow(p, [{ on: 'system', workflow: first.name, outcome: 'completed' }]);
    const both = await workflow(p, [{ on: 'compound', op: 'and', within: '1h', triggers: [{ on: 'webhook', event: 'event.scheduled', filter: { title: 'alpha' } }, { on: 'webhook', event: 'event.scheduled', filter: { title: 'beta' } }] }]);

    // Runs of other tests' tasks may still call the model: answer by what the run is about.
    h.state.llm.setFallback((r) => (JSON.stringify(r.messages).includes('Step one of two') && !r.messages.some((m) => m.role === 'tool') ? { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done' } }] } : { text: 'ok' }));
    const run = await call(app(), `/skills/${first.id}/run`, { method: 'POST', key: p.key });
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    await h.until(async () => ((await taskOf(run.body.firing.taskId)).status === 'completed' ? true : null), 20_000);
    const [fired] = await h.until(async () => ((await started(follow.id)).length ? started(follow.id) : null), 10_000);
    expect(fired).toMatchObject({ triggerKind: 'system', payload: { workflow: first.name, outcome: 'completed' } });

    const t0 = new Date(Date.now() + 86_400_000).toISOString();
    await calendar(p, 'event.scheduled', { id: 'a1', title: 'alpha', startTime: t0 });
    expect(await firingsOf(both.id)).toHaveLength(0);
    await calendar(p, 'event.scheduled', { id: 'b1', title: 'beta', startTime: t0 });
    expect((await started(both.id)).map((f) => f.triggerKind)).toEqual(['compound']);
  });
});

describe('limits under concurrent firings', () => {
  const runAll = (p: Person, skillId: string, n: number) => Promise.all(Array.from({ length: n }, () => call(app(), `/skills/${skillId}/run`, { method: 'POST', key: p.key })));

  it('maxConcurrent 1 with drop: of 20 at once one starts, the rest are dropped (409)', async () => {
    h.state.llm.setFallback({ text: 'working on it' });
    const p = await h.person(await newAccount(app()));
    const wf = await workflow(p, [{ on: 'manual' }], { maxConcurrent: 1, overflowBehavior: 'drop' });
    const answers = await runAll(p, wf.id, 20);
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.reason === 'max_concurrent')).toHaveLength(19);
    expect((await firingsOf(wf.id)).filter((f) => f.status === 'dropped')).toHaveLength(19);
  });

  it('queue keeps the rest waiting and starts the next when a task ends; replace keeps only the newest waiting', async () => {
    h.state.llm.setFallback({ text: 'working on it' });
    const p = await h.person(await newAccount(app()));
    const queued = await workflow(p, [{ on: 'manual' }], { maxConcurrent: 1, overflowBehavior: 'queue' });
    const answers = await runAll(p, queued.id, 5);
    const first = answers.find((a) => a.body.firing?.status === 'started')!;
    expect(answers.filter((a) => a.body.firing?.status === 'queued')).toHaveLength(4);
    expect((await call(app(), `/tasks/${first.body.firing.taskId}/mark-done`, { method: 'POST', key: p.key, body: {} })).status).toBe(200);
    expect(await started(queued.id)).toHaveLength(2);

    const replaced = await workflow(p, [{ on: 'manual' }], { maxConcurrent: 1, overflowBehavior: 'replace' });
    await call(app(), `/skills/${replaced.id}/run`, { method: 'POST', key: p.key });
    for (let i = 0; i < 4; i++) await call(app(), `/skills/${replaced.id}/run`, { method: 'POST', key: p.key });
    const statuses = (await firingsOf(replaced.id)).map((f) => f.status);
    expect(statuses).toEqual(['started', 'replaced', 'replaced', 'replaced', 'queued']);
  });

  it('maxRuns, cooldown and recurrenceEndsAt skip with the reason', async () => {
    h.state.llm.setFallback({ text: 'ok' });
    const p = await h.person(await newAccount(app()));
    const capped = await workflow(p, [{ on: 'manual' }], { maxRuns: 2 });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await call(app(), `/skills/${capped.id}/run`, { method: 'POST', key: p.key }));
    expect(runs.map((r) => r.status)).toEqual([202, 202, 409]);
    expect(runs[2].body.reason).toBe('max_runs_reached');
    const cooled = await workflow(p, [{ on: 'manual' }], { cooldownMs: 3_600_000 });
    const twice = await runAll(p, cooled.id, 2);
    expect(twice.map((r) => r.status).sort()).toEqual([202, 409]);
    const ended = await workflow(p, [{ on: 'manual' }], { recurrenceEndsAt: new Date(Date.now() - 1_000).toISOString() });
    const late = await call(app(), `/skills/${ended.id}/run`, { method: 'POST', key: p.key });
    expect(late.body.reason).toBe('recurrence_ended');
    const log = await call(app(), `/skills/${capped.id}/firings`, { key: p.key });
    expect(log.body.firings.map((f: { status: string }) => f.status)).toEqual(['skipped', 'started', 'started']);
  });
});
