/*
 * The shell sandbox's settings, read from the environment at each use (tests change them per
 * file). Every limit has a default that fits a small deployment; the 60-second command limit is
 * the spec's (document 2, Limits) and can only be lowered.
 */

const MB = 1024 * 1024;

/** The spec's command limit: the default and the most a command may ask for. */
export const MAX_COMMAND_SECONDS = 60;

function positive(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function shellConfig() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    bwrap: process.env.STEWARD_SHELL_BWRAP || '/usr/bin/bwrap',
    /** `off` turns the shell off for the deployment (the tools say so); anything else: on where bubblewrap works. */
    enabled: process.env.STEWARD_SHELL !== 'off',
    /** Seconds a command may run (shell_run's timeoutSec is capped by it): 60, or less where an operator (or a test) lowers it. */
    commandSeconds: Math.min(MAX_COMMAND_SECONDS, positive('STEWARD_SHELL_COMMAND_SECONDS', MAX_COMMAND_SECONDS)),
    /** A background job's wall-clock limit. */
    jobSeconds: positive('STEWARD_SHELL_JOB_MINUTES', 30) * 60,
    memoryBytes: Math.round(positive('STEWARD_SHELL_MEMORY_MB', 1024) * MB),
    /** Processes and threads of one sandbox together (the supervisor's Node threads included). */
    processes: Math.round(positive('STEWARD_SHELL_PROCESSES', 256)),
    /** CPU cores of quota (a cgroup), e.g. 0.5 or 2. */
    cpus: positive('STEWARD_SHELL_CPUS', 1),
    /** The workspace folder's quota (browser profile and home together). */
    diskQuotaBytes: Math.round(positive('STEWARD_SHELL_DISK_MB', 2048) * MB),
    /** /tmp in the sandbox: memory, gone when the sandbox stops. */
    tmpBytes: Math.round(positive('STEWARD_SHELL_TMP_MB', 128) * MB),
    /** Bytes of output kept per stream of a command (its beginning and its end). */
    outputBytes: Math.round(positive('STEWARD_SHELL_OUTPUT_KB', 16) * 1024),
    idleMs: positive('STEWARD_WORKSPACE_IDLE_MINUTES', 15) * 60_000,
    /**
     * The host user the sandbox runs as when Steward runs as root: never root itself, so the
     * kernel's per-user process limit applies and nothing in the sandbox is root on the host.
     * Otherwise the sandbox runs as Steward's own (unprivileged) user.
     */
    hostUid: isRoot ? Math.round(positive('STEWARD_SHELL_UID', 65534)) : null,
    hostGid: isRoot ? Math.round(positive('STEWARD_SHELL_GID', positive('STEWARD_SHELL_UID', 65534))) : null,
    /** A cgroup v2 folder Steward may create children in (delegated to it); unset: what the host allows (cgroup.ts); `off`: none. */
    cgroupRoot: process.env.STEWARD_SHELL_CGROUP || null,
  };
}

export type ShellConfig = ReturnType<typeof shellConfig>;

/** Inside the sandbox: the user's name, ids and home. */
export const SANDBOX_USER = { name: 'user', uid: 1000, gid: 1000, home: '/home/user' } as const;
/** Where the sandbox reaches the egress proxy: a loopback port inside its own network namespace. */
export const SANDBOX_PROXY_PORT = 3128;
/**
 * Folders of the home that the browser (running as Steward, outside any sandbox) writes in:
 * Chromium's XDG config and cache folders and its NSS database are hidden from the sandbox behind
 * empty read-only mounts, and Downloads is mounted read-only. Being mount points inside, none of
 * them can be replaced by a link that would send the browser's writes elsewhere on the host.
 */
export const BROWSER_PRIVATE = ['.cache', '.config', '.pki'] as const;
export const BROWSER_SHARED_READ_ONLY = ['Downloads'] as const;
/** Where the shell's own programs keep their caches and settings (XDG_CACHE_HOME, XDG_CONFIG_HOME). */
export const SHELL_CACHE = '.local/cache';
export const SHELL_CONFIG = '.local/config';

/** Where the relay's socket appears inside the sandbox. */
export const SANDBOX_PROXY_SOCKET = '/run/steward/proxy.sock';
