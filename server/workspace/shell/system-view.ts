import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_USER } from './config';
import { SUPERVISOR_PATH, supervisorScript } from './supervisor';

/*
 * What the sandbox sees of the host: /usr and the few pieces of /etc that programs need to run
 * (dynamic linker cache, Debian's alternatives, TLS roots, the time zone), all read-only, plus
 * account files written for it (one user, `user`, and localhost). Nothing else of the host
 * exists inside: no /home, /root, /srv, /var, no data folder, no Steward checkout, no /sys.
 */

/** Host /etc entries mounted read-only when they exist. */
const ETC_PIECES = [
  'alternatives',
  // TLS roots and OpenSSL's configuration; never /etc/ssl/private.
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'mime.types',
  'os-release',
  'bash.bashrc',
  'inputrc',
  'python3',
  'python3.11',
  'python3.12',
  'python3.13',
];

/** Top-level links of a merged-/usr system (/bin → usr/bin ...), or folders to mount where /usr is not merged. */
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

const ACCOUNT_FILES: Record<string, string> = {
  passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\n${SANDBOX_USER.name}:x:${SANDBOX_USER.uid}:${SANDBOX_USER.gid}:Workspace:${SANDBOX_USER.home}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  group: `root:x:0:\n${SANDBOX_USER.name}:x:${SANDBOX_USER.gid}:\nnogroup:x:65534:\n`,
  hosts: '127.0.0.1 localhost workspace\n::1 localhost ip6-localhost\n',
  nsswitch: 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n',
  hostname: 'workspace\n',
};

/** bubblewrap arguments for the read-only system view. */
export function systemViewArgs(runtime: { dir: string; etc: string }, nodePath: string): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of ROOT_LINKS) {
    const host = `/${name}`;
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(host), host);
    else if (st.isDirectory()) args.push('--ro-bind', host, host);
  }
  for (const piece of ETC_PIECES) args.push('--ro-bind-try', `/etc/${piece}`, `/etc/${piece}`);
  for (const [name, target] of [
    ['passwd', 'passwd'],
    ['group', 'group'],
    ['hosts', 'hosts'],
    ['nsswitch', 'nsswitch.conf'],
    ['hostname', 'hostname'],
  ]) {
    args.push('--ro-bind', path.join(runtime.etc, name!), `/etc/${target}`);
  }
  args.push('--ro-bind', path.join(runtime.dir, 'supervisor.js'), SUPERVISOR_PATH);
  // Node (the supervisor and the user's `node`) when it lives outside /usr (nvm, a tarball).
  if (!nodePath.startsWith('/usr/')) args.push('--ro-bind', nodePath, NODE_IN_SANDBOX);
  return args;
}

/** Where Node is found inside the sandbox when the host keeps it outside /usr. */
export const NODE_IN_SANDBOX = '/opt/steward/bin/node';

export const nodeInSandbox = (nodePath: string) => (nodePath.startsWith('/usr/') ? nodePath : NODE_IN_SANDBOX);

let runtime: Promise<{ dir: string; etc: string; sockets: string }> | undefined;

/**
 * This process's runtime folder under the system's temporary directory: the account files, the
 * supervisor's script and the relays' sockets. Search-only (0711) so that bubblewrap, when it runs as the sandbox's own
 * host user, can reach the files it mounts, and nobody can list them.
 */
export function runtimeDir(): Promise<{ dir: string; etc: string; sockets: string }> {
  runtime ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'steward-shell-'));
    const etc = path.join(dir, 'etc');
    const sockets = path.join(dir, 'sockets');
    await mkdir(etc);
    await mkdir(sockets);
    for (const [name, text] of Object.entries(ACCOUNT_FILES)) await writeFile(path.join(etc, name), text, { mode: 0o644 });
    await writeFile(path.join(dir, 'supervisor.js'), supervisorScript(), { mode: 0o644 });
    for (const d of [dir, etc, sockets]) await chmod(d, 0o711);
    await chmod(etc, 0o755);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return { dir, etc, sockets };
  })();
  runtime.catch(() => (runtime = undefined));
  return runtime;
}

/** Removes the runtime folder once no sandbox uses it (stopAllSandboxes); the next start makes a new one. */
export async function removeRuntimeDir(): Promise<void> {
  const current = runtime;
  runtime = undefined;
  const made = await current?.catch(() => null);
  if (made) rmSync(made.dir, { recursive: true, force: true });
}
