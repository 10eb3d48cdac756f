import path from 'node:path';
import { BROWSER_PRIVATE, BROWSER_SHARED_READ_ONLY, SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, SANDBOX_USER, SHELL_CACHE, SHELL_CONFIG, type ShellConfig } from './config';
import { SUPERVISOR_PATH, type SupervisorSettings } from './supervisor';
import { nodeInSandbox, systemViewArgs } from './system-view';

/*
 * How a user's sandbox is started: one bubblewrap call with new user, mount, PID, IPC, UTS,
 * network and (where the kernel has it) cgroup namespaces; the home folder mounted alone
 * read-write over the read-only system view (system-view.ts), the browser's folders in it made
 * read-only mount points (config.ts, BROWSER_PRIVATE); an environment built from nothing;
 * and three wrappers outside it, each a maintained util-linux or shell tool:
 *
 *   sh -c 'echo $$ > <cgroup>/cgroup.procs ... && exec setpriv ... prlimit ... bwrap ...'
 *
 * - the shell puts itself (and so everything it becomes and starts) in the sandbox's cgroup;
 * - setpriv, only when Steward runs as root, becomes the sandbox's unprivileged host user;
 * - prlimit sets the rlimits every process of the sandbox inherits (but the process count: the
 *   supervisor sets it on each command, so it counts that one sandbox's processes).
 */

const PROXY = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;

/** The whole environment of the sandbox: nothing of Steward's (no database URL, keys, master key). */
export function sandboxEnv(nodePath: string): Record<string, string> {
  const nodeDir = nodeInSandbox(nodePath).replace(/\/node$/, '');
  const searchPath = ['/usr/local/bin', '/usr/bin', '/bin', ...(nodeDir.startsWith('/usr/') ? [] : [nodeDir])].join(':');
  return {
    PATH: searchPath,
    HOME: SANDBOX_USER.home,
    USER: SANDBOX_USER.name,
    LOGNAME: SANDBOX_USER.name,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    TERM: 'dumb',
    XDG_CACHE_HOME: `${SANDBOX_USER.home}/${SHELL_CACHE}`,
    XDG_CONFIG_HOME: `${SANDBOX_USER.home}/${SHELL_CONFIG}`,
    // Lower case for curl and wget, upper case for the rest; nothing is exempt from the proxy.
    http_proxy: PROXY,
    https_proxy: PROXY,
    HTTP_PROXY: PROXY,
    HTTPS_PROXY: PROXY,
    GIT_TERMINAL_PROMPT: '0',
  };
}

export type LaunchPlan = { file: string; args: string[] };

/** Single quotes for the launcher script (the paths are Steward's own). */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function launchPlan(opts: { cfg: ShellConfig; homePath: string; socketPath: string; runtime: { dir: string; etc: string }; procsFiles: string[]; hasCgroup: boolean }): LaunchPlan {
  const { cfg } = opts;
  const nodePath = process.execPath;
  const limits = [
    // No process limit here: set before the sandbox's user namespace exists, it would count every
    // sandbox of the host user together. The supervisor sets it on each command, inside (supervisor.ts).
    `--nofile=1024`,
    `--core=0`,
    // No file in the sandbox can be larger than the whole quota; each command gets what is left.
    `--fsize=${cfg.diskQuotaBytes}`,
  ];
  const drop = cfg.hostUid !== null ? `/usr/bin/setpriv --reuid=${cfg.hostUid} --regid=${cfg.hostGid} --clear-groups -- ` : '';
  const join = opts.procsFiles.map((f) => `echo $$ > ${quote(f)} && `).join('');
  const script = `${join}exec ${drop}/usr/bin/prlimit ${limits.join(' ')} -- ${quote(cfg.bwrap)} "$@"`;

  const env = Object.entries(sandboxEnv(nodePath)).flatMap(([k, v]) => ['--setenv', k, v]);
  const bwrap = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--uid',
    String(SANDBOX_USER.uid),
    '--gid',
    String(SANDBOX_USER.gid),
    '--hostname',
    'workspace',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...env,
    ...systemViewArgs(opts.runtime, nodePath),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(cfg.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    opts.socketPath,
    SANDBOX_PROXY_SOCKET,
    '--bind',
    opts.homePath,
    SANDBOX_USER.home,
    ...BROWSER_SHARED_READ_ONLY.flatMap((name) => ['--ro-bind', path.join(opts.homePath, name), `${SANDBOX_USER.home}/${name}`]),
    ...BROWSER_PRIVATE.flatMap((name) => ['--size', '4096', '--tmpfs', `${SANDBOX_USER.home}/${name}`, '--remount-ro', `${SANDBOX_USER.home}/${name}`]),
    '--chdir',
    SANDBOX_USER.home,
    '--',
    nodeInSandbox(nodePath),
    SUPERVISOR_PATH,
    JSON.stringify({
      proxyPort: SANDBOX_PROXY_PORT,
      proxySocket: SANDBOX_PROXY_SOCKET,
      bwrap: cfg.bwrap,
      prlimit: '/usr/bin/prlimit',
      shell: '/bin/bash',
      home: SANDBOX_USER.home,
      uid: SANDBOX_USER.uid,
      gid: SANDBOX_USER.gid,
      processes: cfg.processes,
      // Without a cgroup the memory limit holds per process (address space), set on each command; with one, for the sandbox as a whole.
      addressSpaceBytes: opts.hasCgroup ? null : cfg.memoryBytes,
    } satisfies SupervisorSettings),
  ];
  return { file: '/bin/sh', args: ['-c', script, 'sh', ...bwrap] };
}
