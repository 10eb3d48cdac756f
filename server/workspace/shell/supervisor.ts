/*
 * The program that runs inside each user's sandbox as its first process (with Node, which the
 * system view holds). Steward talks to it over its stdin and stdout, one JSON message a line.
 * It does three things:
 *
 * - relays 127.0.0.1:<proxy port> of the sandbox's own network namespace to the egress proxy's
 *   socket, which Steward binds into the sandbox: the only way out of a namespace that has no
 *   other route (HTTP_PROXY and HTTPS_PROXY point at it);
 * - runs each command in a nested sandbox of its own (bubblewrap again: a PID namespace, no
 *   further user namespaces) under per-command limits (prlimit), so a timeout kills the command
 *   and everything it started, however it detached;
 * - writes, reads and deletes files of the home directory for the file tools: in the sandbox's
 *   view, so a symbolic link can only lead where the sandbox sees anything.
 *
 * It is written as one self-contained function (no imports, no outer names: built-in modules
 * come from process.getBuiltinModule) because its source text is what runs: Steward writes it to
 * its runtime folder (system-view.ts), mounts it read-only at SUPERVISOR_PATH and starts
 * `node SUPERVISOR_PATH <settings as JSON>`.
 */

/** Where the supervisor's script is inside the sandbox. */
export const SUPERVISOR_PATH = '/opt/steward/supervisor.js';

export type SupervisorSettings = {
  proxyPort: number;
  proxySocket: string;
  bwrap: string;
  prlimit: string;
  shell: string;
  home: string;
  uid: number;
  gid: number;
  /**
   * RLIMIT_NPROC of each command. The kernel counts it per user namespace, up the chain: set on a
   * command inside the sandbox's namespace, it bounds every process of this sandbox together
   * (commands, jobs and the supervisor's own threads), whatever other sandboxes run.
   */
  processes: number;
  /** RLIMIT_AS of each command when no cgroup holds the sandbox's memory (null: the cgroup does). */
  addressSpaceBytes: number | null;
};

/** Requests Steward sends, each with an `id` its answer repeats. */
export type SupervisorRequest =
  | { op: 'ping'; id: string }
  | {
      op: 'run';
      id: string;
      command: string;
      cwd?: string;
      timeoutMs: number;
      /** Bytes one file may grow to (RLIMIT_FSIZE), CPU seconds (RLIMIT_CPU). */
      fileBytes: number;
      cpuSeconds: number;
      outputBytes: number;
      env?: Record<string, string>;
      /** Send the output as it comes (background jobs). */
      stream?: boolean;
    }
  | { op: 'kill'; id: string; target: string }
  | { op: 'write'; id: string; path: string; data: string }
  | { op: 'read'; id: string; path: string; maxBytes: number }
  | { op: 'delete'; id: string; path: string }
  /** Empties /tmp and these folders of the home (their contents; symbolic links are removed, never followed). */
  | { op: 'clean'; id: string; paths: string[] };

export type RunResult = {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  ms: number;
};

/** What comes back: an answer to a request, a finished command, output as it comes, or a note. */
export type SupervisorMessage =
  | { type: 'ready' }
  | { type: 'result'; id: string; ok: true; data?: unknown }
  | { type: 'result'; id: string; ok: false; error: string }
  | ({ type: 'done'; id: string } & RunResult)
  | { type: 'output'; id: string; stream: 'stdout' | 'stderr'; text: string };

function supervisorMain(settings: SupervisorSettings): void {
  const net = process.getBuiltinModule('node:net');
  const fs = process.getBuiltinModule('node:fs');
  const pathMod = process.getBuiltinModule('node:path');
  const os = process.getBuiltinModule('node:os');
  const cp = process.getBuiltinModule('node:child_process');
  const readline = process.getBuiltinModule('node:readline');
  const { StringDecoder } = process.getBuiltinModule('node:string_decoder');

  const send = (m: unknown) => process.stdout.write(JSON.stringify(m) + '\n');
  const running = new Map<string, import('node:child_process').ChildProcess>();

  // Below every process the user starts: a command never competes with Steward on equal terms.
  try {
    os.setPriority(10);
  } catch {
    // not allowed: the limits still hold
  }

  const relay = net.createServer((client) => {
    const upstream = net.connect(settings.proxySocket);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });

  /** A path of the home directory, or null: absolute paths must lie in it, relative ones are taken from it. */
  const inHome = (p: string): string | null => {
    if (typeof p !== 'string' || !p || p.includes('\0')) return null;
    const full = pathMod.resolve(settings.home, p);
    return full === settings.home || full.startsWith(settings.home + '/') ? full : null;
  };

  /**
   * Where a home path really leads, links followed (dangling ones too): what does not exist yet is
   * appended as named. The file tools act on the home only (issue 40): a link in the home to / or
   * /proc/self/environ leads nowhere for them, even though inside the sandbox it would reach only
   * the sandbox's own files.
   */
  const realOf = (full: string): string => {
    // Resolved by hand, one component at a time, so a dangling link still says where it points.
    let parts = full.split('/').filter(Boolean);
    let out = '/';
    let hops = 0;
    while (parts.length) {
      const name = parts.shift()!;
      if (name === '.') continue;
      if (name === '..') {
        out = pathMod.dirname(out);
        continue;
      }
      const next = pathMod.join(out, name);
      const st = fs.lstatSync(next, { throwIfNoEntry: false });
      if (!st) return pathMod.join(next, ...parts);
      if (st.isSymbolicLink()) {
        // A loop of links leads nowhere a file tool may go.
        if (++hops > 40) return '/';
        const target = fs.readlinkSync(next);
        parts = [...target.split('/').filter(Boolean), ...parts];
        if (target.startsWith('/')) out = '/';
        continue;
      }
      out = next;
    }
    return out;
  };
  const leadsHome = (full: string) => {
    const real = realOf(full);
    return real === settings.home || real.startsWith(settings.home + '/');
  };
  const outside = (p: string) => new Error(`${p} leads outside the home directory (through a link)`);

  /** The beginning and the end of a stream, up to `limit` bytes, and how much there was. */
  const capture = (limit: number) => {
    const half = Math.max(1, Math.floor(limit / 2));
    let head = Buffer.alloc(0);
    const tail: Buffer[] = [];
    let tailBytes = 0;
    let total = 0;
    return {
      add: (chunk: Buffer) => {
        total += chunk.length;
        if (head.length < half) {
          const take = chunk.subarray(0, half - head.length);
          head = Buffer.concat([head, take]);
          chunk = chunk.subarray(take.length);
        }
        if (!chunk.length) return;
        tail.push(chunk);
        tailBytes += chunk.length;
        while (tailBytes - tail[0]!.length >= half) tailBytes -= tail.shift()!.length;
      },
      text: () => {
        const rest = Buffer.concat(tail);
        const kept = rest.subarray(Math.max(0, rest.length - half));
        const skipped = total - head.length - kept.length;
        return skipped > 0 ? `${head.toString('utf8')}\n[… ${skipped} bytes not shown …]\n${kept.toString('utf8')}` : head.toString('utf8') + kept.toString('utf8');
      },
      total: () => total,
    };
  };

  const run = (r: Extract<SupervisorRequest, { op: 'run' }>) => {
    const cwd = (r.cwd && inHome(r.cwd)) || settings.home;
    const args = [
      `--fsize=${Math.max(0, Math.floor(r.fileBytes))}`,
      `--cpu=${Math.max(1, Math.ceil(r.cpuSeconds))}`,
      `--nproc=${settings.processes}`,
      ...(settings.addressSpaceBytes ? [`--as=${settings.addressSpaceBytes}`] : []),
      '--core=0',
      '--',
      settings.bwrap,
      '--unshare-pid',
      '--unshare-user',
      '--disable-userns',
      '--uid',
      String(settings.uid),
      '--gid',
      String(settings.gid),
      '--dev-bind',
      '/',
      '/',
      '--die-with-parent',
      '--new-session',
      '--chdir',
      cwd,
      '--',
      settings.shell,
      '-c',
      r.command,
    ];
    const started = Date.now();
    const child = cp.spawn(settings.prlimit, args, { env: { ...process.env, ...(r.env ?? {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
    running.set(r.id, child);
    const out = capture(r.outputBytes);
    const err = capture(r.outputBytes);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The nested sandbox's first process dies with it, and the kernel ends every process of its PID namespace.
      child.kill('SIGKILL');
    }, r.timeoutMs);
    for (const [name, stream, cap] of [
      ['stdout', child.stdout!, out],
      ['stderr', child.stderr!, err],
    ] as const) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        cap.add(chunk);
        if (r.stream) send({ type: 'output', id: r.id, stream: name, text: decoder.write(chunk) });
      });
    }
    child.on('error', (e) => {
      clearTimeout(timer);
      running.delete(r.id);
      send({ type: 'done', id: r.id, exitCode: null, signal: null, timedOut: false, stdout: '', stderr: `could not start: ${e.message}`, stdoutBytes: 0, stderrBytes: 0, ms: 0 });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(r.id);
      send({
        type: 'done',
        id: r.id,
        exitCode: code,
        signal,
        timedOut,
        stdout: out.text(),
        stderr: err.text(),
        stdoutBytes: out.total(),
        stderrBytes: err.total(),
        ms: Date.now() - started,
      });
    });
  };

  const fileOp = (r: Exclude<SupervisorRequest, { op: 'run' | 'ping' | 'kill' | 'clean' }>): unknown => {
    const full = inHome(r.path);
    if (!full || full === settings.home) throw new Error(`${r.path} is not a file path inside the home directory`);
    // The link itself may be written over or deleted (it is in the home); what it points to is never reached.
    if (!leadsHome(r.op === 'read' ? full : pathMod.dirname(full))) throw outside(r.path);
    if (r.op === 'write') {
      fs.mkdirSync(pathMod.dirname(full), { recursive: true });
      if (!leadsHome(pathMod.dirname(full))) throw outside(r.path);
      const bytes = Buffer.from(r.data, 'base64');
      const tmp = `${full}.steward-${process.pid}-${Date.now()}.part`;
      fs.writeFileSync(tmp, bytes, { mode: 0o644 });
      fs.renameSync(tmp, full);
      return { path: full, bytes: bytes.length };
    }
    if (r.op === 'delete') {
      if (!fs.lstatSync(full, { throwIfNoEntry: false })) throw new Error(`${r.path} does not exist`);
      fs.rmSync(full, { recursive: true, force: true });
      return { path: full };
    }
    const st = fs.statSync(full);
    if (!st.isFile()) throw new Error(`${r.path} is not a regular file`);
    if (st.size > r.maxBytes) throw new Error(`${r.path} is ${st.size} bytes, more than the ${r.maxBytes} allowed`);
    return { path: full, bytes: st.size, data: fs.readFileSync(full).toString('base64') };
  };

  const handle = (r: SupervisorRequest) => {
    try {
      if (r.op === 'run') return run(r);
      if (r.op === 'ping') return send({ type: 'result', id: r.id, ok: true });
      if (r.op === 'kill') {
        running.get(r.target)?.kill('SIGKILL');
        return send({ type: 'result', id: r.id, ok: true });
      }
      if (r.op === 'clean') {
        const dirs = ['/tmp', ...r.paths.map(inHome).filter((d): d is string => d !== null && d !== settings.home)];
        for (const dir of dirs) {
          const st = fs.lstatSync(dir, { throwIfNoEntry: false });
          if (!st) continue;
          if (!st.isDirectory()) {
            fs.rmSync(dir, { force: true });
            continue;
          }
          for (const name of fs.readdirSync(dir)) {
            try {
              fs.rmSync(pathMod.join(dir, name), { recursive: true, force: true });
            } catch {
              // not the sandbox's to remove (the browser's): left as it is
            }
          }
        }
        return send({ type: 'result', id: r.id, ok: true });
      }
      send({ type: 'result', id: r.id, ok: true, data: fileOp(r) });
    } catch (e) {
      send({ type: 'result', id: r.id, ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  };

  relay.listen(settings.proxyPort, '127.0.0.1', () => {
    send({ type: 'ready' });
    const lines = readline.createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      let r: SupervisorRequest;
      try {
        r = JSON.parse(line);
      } catch {
        return;
      }
      handle(r);
    });
    // Steward went away (or stopped the sandbox): the sandbox ends with this process.
    lines.on('close', () => process.exit(0));
  });
}

/**
 * The supervisor as a script taking its settings as its one argument. `__name` is defined first
 * because some TypeScript transpilers (esbuild's keepNames, which tsx uses) wrap inner functions
 * in a helper of that name.
 */
export function supervisorScript(): string {
  return `'use strict';\nvar __name = (f) => f;\n(${supervisorMain.toString()})(JSON.parse(process.argv[2]));\n`;
}
