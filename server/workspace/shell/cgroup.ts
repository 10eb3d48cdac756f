import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { logger } from '@/server/logger';
import type { ShellConfig } from './config';

/*
 * A cgroup per sandbox when the host lets Steward make one: the memory, process-count and CPU
 * limits then hold for the sandbox as a whole (not per process, as rlimits do), and its memory
 * and CPU time are read exactly. Where none can be made the sandbox still starts, held by its
 * rlimits (sandbox.ts), and the profile says which applies.
 *
 * - cgroup v2: inside STEWARD_SHELL_CGROUP (a folder delegated to Steward's user, with memory,
 *   pids and cpu in its cgroup.subtree_control), or, for root, /sys/fs/cgroup/steward-shell.
 * - cgroup v1: a child of Steward's own group in each of the memory, pids, cpu and cpuacct
 *   hierarchies, where those are writable (root in most containers and VMs).
 */

const V1 = ['memory', 'pids', 'cpu', 'cpuacct'] as const;
const PERIOD_US = 100_000;

export type SandboxCgroup = {
  version: 1 | 2;
  /** The cgroup.procs files a process writes its pid to, so it and everything it starts is inside. */
  procsFiles: string[];
  memoryBytes: () => Promise<number | null>;
  cpuSeconds: () => Promise<number | null>;
  remove: () => Promise<void>;
};

const readNumber = async (file: string): Promise<number | null> => {
  const n = Number((await readFile(file, 'utf8').catch(() => '')).trim().split(/\s+/)[0]);
  return Number.isFinite(n) ? n : null;
};

/** An empty group goes away once its processes are gone; the kernel may take a moment to let go. */
async function removeDirs(dirs: string[]) {
  for (const dir of dirs) {
    for (let i = 0; i < 20; i++) {
      try {
        await rmdir(dir);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}

async function v2(parent: string, name: string, cfg: ShellConfig): Promise<SandboxCgroup> {
  const dir = path.join(parent, name);
  await mkdir(parent, { recursive: true });
  // Children of the parent get these controllers (a delegated folder may have them already).
  await writeFile(path.join(parent, 'cgroup.subtree_control'), '+memory +pids +cpu').catch(() => undefined);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'memory.max'), String(cfg.memoryBytes));
  await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
  await writeFile(path.join(dir, 'pids.max'), String(cfg.processes));
  await writeFile(path.join(dir, 'cpu.max'), `${Math.round(cfg.cpus * PERIOD_US)} ${PERIOD_US}`).catch(() => undefined);
  return {
    version: 2,
    procsFiles: [path.join(dir, 'cgroup.procs')],
    memoryBytes: () => readNumber(path.join(dir, 'memory.current')),
    cpuSeconds: async () => {
      const m = /usage_usec (\d+)/.exec(await readFile(path.join(dir, 'cpu.stat'), 'utf8').catch(() => ''));
      return m ? Number(m[1]) / 1e6 : null;
    },
    remove: () => removeDirs([dir]),
  };
}

/** Steward's own group in a v1 hierarchy (from /proc/self/cgroup). */
async function ownV1Path(controller: string): Promise<string | null> {
  for (const line of (await readFile('/proc/self/cgroup', 'utf8')).split('\n')) {
    const [, controllers, p] = line.split(':');
    if (controllers?.split(',').includes(controller)) return p ?? null;
  }
  return null;
}

async function v1(name: string, cfg: ShellConfig): Promise<SandboxCgroup> {
  const dirs: Partial<Record<(typeof V1)[number], string>> = {};
  try {
    for (const c of V1) {
      const own = await ownV1Path(c);
      if (own === null || !existsSync(`/sys/fs/cgroup/${c}`)) continue;
      const dir = path.join('/sys/fs/cgroup', c, own, name);
      await mkdir(dir, { recursive: true });
      dirs[c] = dir;
    }
    if (!dirs.memory || !dirs.pids) throw new Error('no writable memory and pids hierarchies');
    await writeFile(path.join(dirs.memory, 'memory.limit_in_bytes'), String(cfg.memoryBytes));
    await writeFile(path.join(dirs.pids, 'pids.max'), String(cfg.processes));
    if (dirs.cpu) {
      await writeFile(path.join(dirs.cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
      await writeFile(path.join(dirs.cpu, 'cpu.cfs_quota_us'), String(Math.round(cfg.cpus * PERIOD_US)));
    }
  } catch (e) {
    await removeDirs(Object.values(dirs));
    throw e;
  }
  return {
    version: 1,
    procsFiles: Object.values(dirs).map((d) => path.join(d, 'cgroup.procs')),
    memoryBytes: () => readNumber(path.join(dirs.memory!, 'memory.usage_in_bytes')),
    cpuSeconds: async () => {
      const ns = dirs.cpuacct ? await readNumber(path.join(dirs.cpuacct, 'cpuacct.usage')) : null;
      return ns === null ? null : ns / 1e9;
    },
    remove: () => removeDirs(Object.values(dirs)),
  };
}

let warned = false;

/** The sandbox's cgroup with its limits written, or null when the host gives Steward none. */
export async function createCgroup(key: string, cfg: ShellConfig): Promise<SandboxCgroup | null> {
  const name = `steward-shell-${key}`;
  if (cfg.cgroupRoot === 'off') return null;
  const unified = existsSync('/sys/fs/cgroup/cgroup.controllers');
  try {
    if (cfg.cgroupRoot) return await v2(cfg.cgroupRoot, name, cfg);
    if (unified && cfg.hostUid !== null) return await v2('/sys/fs/cgroup/steward-shell', name, cfg);
    if (!unified) return await v1(name, cfg);
  } catch (e) {
    if (!warned) logger.warn({ err: e }, 'workspace shell: no cgroup could be made; sandboxes are held by rlimits only');
    warned = true;
  }
  return null;
}
