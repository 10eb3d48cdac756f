import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@/db/embedded';
import type { Database } from '@/db/client';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';

/**
 * Production processes (npm start) that are nodes of one deployment (spec document 6, Many
 * machines): each publishes its own address (STEWARD_NODE_URL), all share STEWARD_NODE_SECRET,
 * the database and the workspace folder (STEWARD_WORKSPACE_DIR: shared storage, as docs/deploy.md
 * asks). Inbound SMTP is off unless `env` turns it on (one port cannot serve several processes).
 */
export type Node = ProductionServer & { url: string; restart: () => Promise<Node> };

export type NodeSet = {
  nodes: Node[];
  secret: string;
  workspaceDir: string;
  metricsToken: string;
  env: Record<string, string>;
  /** Stops every process and removes the shared workspace folder. */
  stop: () => Promise<void>;
};

export async function startNodes(
  database: { url: string; database: Database },
  count: number,
  env: Record<string, string> = {},
  /** Settings of one process only (its inbound SMTP port, say), by its index. */
  own: (i: number) => Record<string, string> = () => ({}),
): Promise<NodeSet> {
  const secret = randomBytes(32).toString('base64url');
  const metricsToken = randomBytes(16).toString('hex');
  const workspaceDir = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-nodes-'));
  const shared = {
    STEWARD_NODE_SECRET: secret,
    STEWARD_WORKSPACE_DIR: workspaceDir,
    STEWARD_WORKSPACE_ALLOW_PRIVATE: '127.0.0.1/32',
    STEWARD_INBOUND_SMTP_PORT: 'off',
    STEWARD_METRICS_TOKEN: metricsToken,
    ...env,
  };
  const startOne = async (port: number, i: number): Promise<Node> => {
    const url = `http://127.0.0.1:${port}`;
    const make = () => startProductionServer(database, { ...shared, STEWARD_NODE_URL: url, ...own(i) }, port);
    const node = Object.assign(await make(), { url }) as Node;
    // The same port and address, as a supervisor restarts a process: a new life of the same node.
    node.restart = async () => {
      await node.kill('SIGKILL');
      const again = await make();
      Object.assign(node, { child: again.child, output: again.output, kill: again.kill });
      return node;
    };
    return node;
  };
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const started = await Promise.allSettled(ports.map((p, i) => startOne(p, i)));
  const nodes = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failure = started.find((r) => r.status === 'rejected');
  if (failure) {
    // The ones that did start are not left running.
    await Promise.all(nodes.map((n) => n.kill()));
    removeWorkspace(workspaceDir);
    throw failure.reason;
  }
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    removeWorkspace(workspaceDir);
  };
  return { nodes, secret, workspaceDir, metricsToken, env: shared, stop };
}

/**
 * Playwright starts each browser as the leader of its own process group, so killing a node's group
 * (SIGKILL: a crash) leaves its browsers running, still writing their profiles under the shared
 * folder; CI lost a run to ENOTEMPTY here. Those are ended first (their --user-data-dir names the
 * folder), then the folder goes.
 */
function removeWorkspace(dir: string): void {
  spawnSync('pkill', ['-KILL', '-f', dir]);
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}

/** One figure of a process's /api/metrics (summed over its label sets), or 0 when absent. */
export async function metric(node: { baseUrl: string }, token: string, name: string): Promise<number> {
  const text = await (await fetch(`${node.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) sum += Number(m[3]);
  }
  return sum;
}
