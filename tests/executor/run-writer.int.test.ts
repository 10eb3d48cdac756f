import { describe, expect, it } from 'vitest';
import { createRunWriter } from '@/server/executor/run-writer';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await app().database.pool.query(text, params)).rows as T[];

/** A registered function and runs of it in the given states, made in SQL. */
async function setup(runs: Array<{ id: string; status: string; owner?: string; steps?: object; stack?: string[]; concurrencyKey?: string }>) {
  await q(`INSERT INTO executor_functions (id, app_name, url, config) VALUES ('w-fn', 'w', 'http://127.0.0.1:9/api/inngest', '{"id":"w-fn"}') ON CONFLICT DO NOTHING`);
  for (const r of runs) {
    await q(
      `INSERT INTO executor_runs (id, function_id, event, status, steps, stack, lease_owner, lease_until, available_at, concurrency_key)
       VALUES ($1, 'w-fn', '{"name":"w/go"}', $2, $3, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE now() + interval '1 minute' END, now() - interval '1 second', $6)`,
      [r.id, r.status, JSON.stringify(r.steps ?? {}), JSON.stringify(r.stack ?? []), r.owner ?? null, r.concurrencyKey ?? null],
    );
  }
}
const run = async (id: string) => (await q(`SELECT status, steps, stack, attempt, output, error, lease_owner, finished_at FROM executor_runs WHERE id = $1`, [id]))[0];
const log = async (id: string) => (await q<{ step_id: string; op: string; attempt: number }>(`SELECT step_id, op, attempt FROM executor_step_log WHERE run_id = $1 ORDER BY created_at`, [id]));

describe('run writer (group-committed checkpoints and run ends)', () => {
  it('stores checkpoints only for the lease holder; a stored result wins over a repeated one', async () => {
    await setup([{ id: 'cp1', status: 'running', owner: 'me', steps: { a: { type: 'data', data: 1 } }, stack: ['a'] }]);
    const w = createRunWriter(app().database.db);
    const [mine, theirs, again] = await Promise.all([
      w.checkpoint({ runId: 'cp1', owner: 'me', steps: [{ id: 'b', op: 'StepRun', data: 2 }] }),
      w.checkpoint({ runId: 'cp1', owner: 'someone-else', steps: [{ id: 'c', op: 'StepRun', data: 3 }] }),
      w.checkpoint({ runId: 'cp1', owner: 'me', steps: [{ id: 'a', op: 'StepRun', data: 99 }] }),
    ]);
    expect([mine, theirs, again]).toEqual([true, false, true]);
    expect(await run('cp1')).toMatchObject({ status: 'running', steps: { a: { type: 'data', data: 1 }, b: { type: 'data', data: 2 } }, stack: ['a', 'b'] });
    expect(await log('cp1')).toEqual([{ step_id: 'b', op: 'StepRun', attempt: 0 }]);
  });

  it("a run's end stores its outcome and last steps, and claims the next due run for the same worker in the same write", async () => {
    await setup([
      { id: 'end1', status: 'running', owner: 'w1' },
      { id: 'end2', status: 'running', owner: 'w1' },
      { id: 'next1', status: 'queued' },
      { id: 'keyed1', status: 'queued', concurrencyKey: 'w-fn:k' },
    ]);
    const w = createRunWriter(app().database.db);
    const now = new Date();
    const base = { owner: 'w1', ids: [], logs: [], attempt: 0, finishedAt: now, next: { owner: 'w1', now, leaseMs: 60_000 } };
    const [a, b] = await Promise.all([
      w.finish({ ...base, runId: 'end1', status: 'completed', output: { sum: 3 }, error: null, steps: { last: { type: 'data', data: 'x' } }, ids: ['last'], logs: [{ step_id: 'last', name: 'last', op: 'StepRun', attempt: 0, data: null }] }),
      w.finish({ ...base, runId: 'end2', status: 'failed', output: null, error: { name: 'Error', message: 'no' }, steps: {}, attempt: 2 }),
    ]);
    expect([a.stored, b.stored]).toEqual([true, true]);
    // One due run without a concurrency key: one of the two ends got it, the other none (keyed runs take the keyed path).
    const claimed = [a.next, b.next].filter((n) => n !== null);
    expect(claimed.map((c) => [c!.run.id, c!.run.status, c!.run.leaseOwner, c!.fn?.id])).toEqual([['next1', 'running', 'w1', 'w-fn']]);
    expect(await run('next1')).toMatchObject({ status: 'running', lease_owner: 'w1' });
    expect(await run('keyed1')).toMatchObject({ status: 'queued', lease_owner: null });
    expect(await run('end1')).toMatchObject({ status: 'completed', output: { sum: 3 }, error: null, lease_owner: null, stack: ['last'], steps: { last: { type: 'data', data: 'x' } } });
    expect((await run('end1')).finished_at).toEqual(now);
    expect(await run('end2')).toMatchObject({ status: 'failed', output: null, error: { name: 'Error', message: 'no' }, attempt: 2 });
    expect(await log('end1')).toEqual([{ step_id: 'last', op: 'StepRun', attempt: 0 }]);
  });

  it('refuses the end of a run the worker no longer holds, and hands it the next run all the same', async () => {
    await setup([
      { id: 'lost1', status: 'running', owner: 'new-owner' },
      { id: 'cancelled1', status: 'cancelled' },
      { id: 'next2', status: 'queued' },
    ]);
    const w = createRunWriter(app().database.db);
    const now = new Date();
    const ends = { ids: [], steps: {}, logs: [], attempt: 0, finishedAt: now, status: 'completed' as const, output: 1, error: null };
    const lost = await w.finish({ ...ends, runId: 'lost1', owner: 'old-owner', next: { owner: 'old-owner', now, leaseMs: 60_000 } });
    expect(lost.stored).toBe(false);
    expect(lost.next?.run.id).toBe('next2');
    const cancelled = await w.finish({ ...ends, runId: 'cancelled1', owner: 'old-owner' });
    expect(cancelled).toEqual({ stored: false, next: null });
    expect(await run('lost1')).toMatchObject({ status: 'running', lease_owner: 'new-owner', output: null });
    expect(await run('cancelled1')).toMatchObject({ status: 'cancelled', output: null });
  });

  it("a run's checkpoint and its end arriving together go in two statements, in order", async () => {
    await setup([{ id: 'both1', status: 'running', owner: 'w2' }]);
    const w = createRunWriter(app().database.db);
    // Keep the writer busy with a first write, so the next two wait for the same flush.
    const first = w.checkpoint({ runId: 'both1', owner: 'w2', steps: [{ id: 's1', op: 'StepRun', data: 1 }] });
    const cp = w.checkpoint({ runId: 'both1', owner: 'w2', steps: [{ id: 's2', op: 'StepRun', data: 2 }] });
    const end = w.finish({ runId: 'both1', owner: 'w2', ids: ['s3'], steps: { s3: { type: 'data', data: 3 } }, logs: [], attempt: 0, finishedAt: new Date(), status: 'completed', output: 6, error: null });
    expect(await Promise.all([first, cp, end.then((e) => e.stored)])).toEqual([true, true, true]);
    expect(await run('both1')).toMatchObject({ status: 'completed', output: 6, stack: ['s1', 's2', 's3'] });
  });
});
