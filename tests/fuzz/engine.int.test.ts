import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { endpoints } from '@/server/endpoints';
import { createApiCore } from '@/server/http/kernel';
import { createNodeServer } from '@/server/http/node-server';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { useRunHarness } from '../agent/run-harness';
import { describeFailures, fuzzEndpoint, request, SEED } from './harness';

/**
 * The fuzz with the durable engine on (the built-in executor, the production functions served at
 * /api/inngest, a scripted model that always answers): the endpoints that hand work to the engine
 * are fuzzed as in endpoints-*.int.test.ts, and then the work they started must have run without
 * a function failing. /api/inngest itself gets hostile calls (unsigned, forged, malformed): never a
 * 5xx, and the engine still works after them.
 */
const h = useRunHarness();
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-fuzz-engine-')))));
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const handsWork = endpoints.filter((ep) => ep.method !== 'GET' && (ep.killSwitch || /\/(process|approve|run|test|top-up|mark-not-done)$/.test(ep.path)));

/** Waits until the engine has nothing queued or running (the fuzz's work is done). */
async function engineIdle(timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await h.db().execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM executor_runs WHERE status IN ('queued', 'running')`);
    if (rows[0].n === 0 || Date.now() > end) return rows[0].n;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('with the engine on', () => {
  it.each(handsWork.map((ep) => [`${ep.method} ${ep.path}`, ep] as const))('%s: no 5xx, every answer documented', async (_name, ep) => {
    h.state.llm.setFallback({ text: 'Done.' });
    const failures = await fuzzEndpoint(h.app(), ep, RUNS);
    expect(failures, describeFailures(ep, failures)).toEqual([]);
  }, 180_000);

  it('the work the fuzz started ran: no durable function failed', async () => {
    h.state.llm.setFallback({ text: 'Done.' });
    expect(await engineIdle(), 'runs still open').toBe(0);
    const { rows } = await h.db().execute<{ function_id: string; error: unknown }>(sql`SELECT function_id, error FROM executor_runs WHERE status = 'failed'`);
    expect(rows.map((r) => `${r.function_id}: ${JSON.stringify(r.error).slice(0, 300)}`)).toEqual([]);
  }, 90_000);

  it('/api/inngest (the production handler, mounted as npm start mounts it): hostile calls never get a 5xx, and the engine works after them', async () => {
    // What npm start serves, not the harness's bare serve: pinned serve URL, refused calls counted.
    const { inngestServeHandler } = await import('@/inngest/serve');
    const serveFunctions = inngestServeHandler(() => h.app().kernel.rateLimits);
    const front = createNodeServer(createApiCore([], h.app().kernel), { mounts: { '/api/inngest': (req, info) => serveFunctions(req, info.clientIp) } });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const seen: string[] = [];
    const call = fc.record({
      method: fc.constantFrom('GET', 'PUT', 'POST'),
      query: fc.constantFrom('', '?fnId=steward-task-run', '?fnId=steward-task-run&stepId=step', '?fnId=%00&stepId=%FF', '?probe=trust', `?fnId=${'x'.repeat(3000)}`),
      signature: fc.constantFrom(null, '', 't=1&s=00', `t=${Math.floor(Date.now() / 1000)}&s=${'a'.repeat(64)}`, 'garbage'),
      body: fc.oneof(fc.constant(''), fc.constant('{'), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.constant(JSON.stringify({ event: { name: 'steward/task.run-requested', data: { runId: 'x' } }, steps: {}, ctx: { run_id: 'r', attempt: 0 } }))),
    });
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (c.signature !== null) headers['X-Inngest-Signature'] = c.signature;
        const res = await request(`${base}/api/inngest${c.query}`, c.method, headers, c.method === 'GET' ? undefined : c.body);
        if (res.status >= 500) seen.push(`${c.method} ${c.query.slice(0, 80)} sig=${c.signature} body=${c.body.slice(0, 120)} → ${res.status} ${res.text.slice(0, 200)}`);
      }),
      { seed: SEED, numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
    );
    front.close();
    expect(seen).toEqual([]);
    // Still serving: a task runs to its end.
    h.state.llm.setFallback(null);
    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done' } }] });
    const p = await h.person(await (await import('../helpers/client')).newAccount(h.app()));
    const { runId } = await h.startTask(p, { title: 'After the fuzz' });
    expect((await h.ended(runId)).status).toBe('finished');
  }, 120_000);
});
