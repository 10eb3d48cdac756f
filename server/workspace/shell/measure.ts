import { readdir, readFile } from 'node:fs/promises';
import { treeUsage } from '../browser/process-tree';
import type { SandboxCgroup } from './cgroup';

/*
 * Measured numbers of one sandbox: from its cgroup when it has one (exact: every process that
 * ever ran in it), else from /proc over the sandbox's process tree. CPU time from /proc counts
 * each living process's own time and what its finished children used (cutime, cstime): every
 * process in the sandbox is reaped inside it (bubblewrap's init, the supervisor), so nothing is
 * lost when a command ends.
 */

const TICKS_PER_SECOND = 100;

type Stat = { pid: number; ppid: number; ticks: number };

async function stats(): Promise<Stat[]> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n));
  const out = await Promise.all(
    pids.map(async (p) => {
      const text = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => null);
      if (!text) return null;
      // After the command name (which may hold spaces): state is field 3; utime, stime, cutime, cstime are 14 to 17.
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return { pid: Number(p), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
    }),
  );
  return out.filter((s): s is Stat => s !== null);
}

/** CPU seconds of `pid` and everything below it, finished children included. */
export async function treeCpuSeconds(pid: number): Promise<number | null> {
  const all = await stats();
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const root = all.find((s) => s.pid === pid);
  if (!root) return null;
  let ticks = 0;
  const queue = [root];
  while (queue.length) {
    const s = queue.shift()!;
    ticks += s.ticks;
    queue.push(...(byParent.get(s.pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

export type SandboxUsage = { memoryBytes: number | null; cpuSeconds: number | null };

export async function sandboxUsage(pid: number | undefined, cgroup: SandboxCgroup | null): Promise<SandboxUsage> {
  if (cgroup) return { memoryBytes: await cgroup.memoryBytes(), cpuSeconds: await cgroup.cpuSeconds() };
  if (!pid) return { memoryBytes: null, cpuSeconds: null };
  const tree = await treeUsage(pid);
  return { memoryBytes: tree ? (tree.pssBytes ?? tree.rssBytes) : null, cpuSeconds: await treeCpuSeconds(pid) };
}
