import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/*
 * Measured numbers of one user's browser, read from /proc (Linux): the Chromium browser
 * process and every process below it (zygotes, renderers, GPU and utility processes).
 * /proc reports CPU time in USER_HZ ticks, 100 per second on Linux.
 */

const TICKS_PER_SECOND = 100;

type Stat = { pid: number; ppid: number; cpuTicks: number };

/** The fields after the command name, which may itself hold spaces and parentheses. */
function parseStat(pid: number, text: string): Stat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return { pid, ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) };
}

async function allStats(): Promise<Stat[]> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  const stats = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, 'utf8').then((t) => parseStat(pid, t), () => null)));
  return stats.filter((s): s is Stat => s !== null);
}

/** The pid of the Chromium browser process that owns `profileDir` (the one without --type=). */
export async function findBrowserPid(profileDir: string): Promise<number | null> {
  const flag = `--user-data-dir=${profileDir}`;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const args = cmd.split('\0');
    if (args.includes(flag) && !args.some((a) => a.startsWith('--type='))) return Number(name);
  }
  return null;
}

/**
 * `rssBytes` sums each process's resident set, so pages shared between processes (Chromium's
 * binary and libraries) count once per process: several times over. `pssBytes` splits each
 * shared page among the processes mapping it, so the PSS of several browsers adds up to the
 * memory they really take; null where smaps_rollup cannot be read.
 */
export type TreeUsage = { processes: number; rssBytes: number; pssBytes: number | null; cpuSeconds: number };

const kbField = (text: string, field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : null;
};

/** RSS, PSS and CPU time of `pid` and all its descendants; null when the process is gone. */
export async function treeUsage(pid: number): Promise<TreeUsage | null> {
  const stats = await allStats();
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const root = stats.find((s) => s.pid === pid);
  if (!root) return null;
  const tree: Stat[] = [];
  const queue = [root];
  while (queue.length) {
    const s = queue.shift()!;
    tree.push(s);
    queue.push(...(children.get(s.pid) ?? []));
  }
  const memory = await Promise.all(
    tree.map(async (s) => ({
      rss: kbField(await readFile(`/proc/${s.pid}/status`, 'utf8').catch(() => ''), 'VmRSS') ?? 0,
      pss: kbField(await readFile(`/proc/${s.pid}/smaps_rollup`, 'utf8').catch(() => ''), 'Pss'),
    })),
  );
  return {
    processes: tree.length,
    rssBytes: memory.reduce((a, m) => a + m.rss, 0),
    pssBytes: memory.every((m) => m.pss !== null) ? memory.reduce((a, m) => a + m.pss!, 0) : null,
    cpuSeconds: tree.reduce((a, s) => a + s.cpuTicks, 0) / TICKS_PER_SECOND,
  };
}

/** Bytes a folder takes on disk (allocated blocks), symlinks not followed. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    await Promise.all(
      entries.map(async (e) => {
        const p = path.join(d, e.name);
        const st = await lstat(p).catch(() => null);
        if (!st) return;
        total += st.blocks * 512;
        if (e.isDirectory()) await walk(p);
      }),
    );
  };
  await walk(dir);
  return total;
}
