/**
 * The cluster section of `npm run bench` (issue 47), under `cluster` in bench/results.json: the
 * cluster test's run (tests/cluster/scenario.ts: HAProxy in front of three npm start processes on
 * one PostgreSQL, mixed load, the process holding a user's browser killed with SIGKILL and started
 * again), on a throwaway PostgreSQL of its own.
 *
 * - `lostRuns` (target 0): task runs not finished, or finished without their task completing.
 * - `lostInbound` (target 0): mail accepted (250) by the load balancer's SMTP port and not
 *   processed once.
 * - `failedRequests`: requests that failed, all of them in flight at the kill
 *   (`failedInFlightAtKill`; `unexpectedFailures` lists any other).
 * The rest of the report (runs, inbound, streams, webhooks, workspace, requests, timings) is kept
 * beside them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { runClusterScenario } from '../tests/cluster/scenario';

export async function bench() {
  const pgServer = await startThrowawayDatabase('cluster_bench');
  const database = connect(pgServer.url, { max: 4 });
  // The processes inherit this process's environment: a master key and a data folder of their own.
  const saved = { key: process.env.STEWARD_MASTER_KEY, dir: process.env.STEWARD_DATA_DIR };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'steward-cluster-bench-'));
  process.env.STEWARD_MASTER_KEY = randomBytes(32).toString('base64');
  process.env.STEWARD_DATA_DIR = dataDir;
  try {
    const report = await runClusterScenario({ url: pgServer.url, database }, { log: (m) => process.stderr.write(`[bench cluster] ${m}\n`) });
    return {
      ...report,
      failedInFlightAtKill: report.requests.failedInFlightAtKill,
      unexpectedFailures: report.requests.unexpectedFailures.length,
      target: { lostRuns: 0, lostInbound: 0, failedRequests: 'only those in flight at the kill' },
    };
  } finally {
    for (const [k, v] of [['STEWARD_MASTER_KEY', saved.key], ['STEWARD_DATA_DIR', saved.dir]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dataDir, { recursive: true, force: true });
    await database.close();
    await pgServer.stop();
  }
}
