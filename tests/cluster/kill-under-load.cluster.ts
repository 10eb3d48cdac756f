import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database';
import { runClusterScenario } from './scenario';

/**
 * Issue 47: HAProxy in front of three npm start processes on one PostgreSQL; under a mixed load
 * one process is killed with SIGKILL and started again (tests/cluster/scenario.ts says what runs
 * and how everything is counted). The report is printed whole; these are its promises.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('three processes behind HAProxy, one killed under load', () => {
  it('loses no run, no accepted mail, no stream event and no webhook; only the requests in flight at the kill fail', async () => {
    const report = await runClusterScenario(database, { log: (m) => process.stderr.write(`[cluster] ${m}\n`) });
    process.stderr.write(`[cluster] report ${JSON.stringify(report, null, 2)}\n`);

    expect(report.runs).toMatchObject({ lostRuns: 0, duplicateRuns: 0 });
    expect(report.runs.completed).toBe(report.runs.tasks);
    expect(report.inbound).toMatchObject({ lostInbound: 0, duplicateInbound: 0 });
    expect(report.inbound.answered).toBe(report.inbound.accepted);
    expect(report.streams.cutByKill).toBeGreaterThan(0);
    expect(report.streams.resumedAtAnotherProcess).toBe(report.streams.cutByKill);
    expect(report.streams.complete).toBe(report.streams.opened);
    expect(report.streams.problems).toEqual([]);
    expect(report.webhooks.lostWebhooks).toBe(0);
    expect(report.workspace.liveViewBefore).toMatchObject({ opened: 101, status: 'running' });
    expect(report.workspace.liveViewAfter).toMatchObject({ opened: 101, status: 'running', answered: 'completed' });
    expect(report.workspace.newHolder).not.toBe(report.workspace.holderKilled);
    expect(report.requests.unexpectedFailures).toEqual([]);
    expect(report.requests.clientErrors).toEqual([]);
    expect(report.requests.failed).toBe(report.requests.failedInFlightAtKill);
  });
});
