import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * HAProxy (Debian's /usr/sbin/haproxy) in front of Steward processes: the reference topology of
 * spec document 6 (Many machines) and docs/deploy.md, whose example configuration is what
 * `haproxyConfig` renders (tests/deploy/haproxy-config.test.ts keeps the two equal).
 */

export type Upstream = { name: string; host: string; port: number; smtpPort?: number };

export type HaproxyOptions = {
  /** Where clients reach the API (and the pages). */
  bind: string;
  servers: Upstream[];
  /** Where mail for assistant addresses arrives (point the MX here); omitted: no SMTP frontend. */
  smtpBind?: string;
  /** The admin socket the test reads server states from (omitted in the documented example). */
  statsSocket?: string;
};

/**
 * The configuration: round robin over every process with no affinity (any process serves any
 * request), health checks on /api/ready, timeouts well above the 15 s SSE heartbeat, WebSocket
 * upgrades kept open as tunnels, responses streamed unbuffered (HAProxy never buffers a response
 * body; compression, which would, is not enabled), a connection refused by a dead process retried
 * on another one, and the serving process named in X-Steward-Server.
 */
export function haproxyConfig(o: HaproxyOptions): string {
  const lines = [
    'global',
    '    maxconn 4096',
    '    log stdout format raw local0',
    ...(o.statsSocket ? [`    stats socket ${o.statsSocket} mode 600 level admin`] : []),
    '',
    'defaults',
    '    log global',
    '    mode http',
    '    option httplog',
    '    timeout connect 3s',
    '    # Above the 15-second SSE heartbeat: an idle chat stream is never cut by the proxy.',
    '    timeout client 60s',
    '    timeout server 60s',
    '    # A live view (WebSocket) is a tunnel once upgraded.',
    '    timeout tunnel 1h',
    '    timeout http-request 10s',
    '    timeout http-keep-alive 10s',
    '    # A fresh connection to a Steward process for each request: one to a process that died is',
    '    # refused, and the request is tried again on another process (nothing was sent). A request',
    '    # sent on a kept-alive connection to a dead process could only be answered by closing the',
    '    # client\'s connection.',
    '    option http-server-close',
    '    retries 3',
    '    option redispatch 1',
    '',
    'frontend steward',
    `    bind ${o.bind}`,
    '    # What Steward reads under TRUST_PROXY=1: the client address (rate limits, audit) appended',
    '    # last, and the host the client asked for (never a value the client sent itself).',
    '    option forwardfor',
    '    http-request set-header X-Forwarded-Host %[req.hdr(host)]',
    '    default_backend steward',
    '',
    'backend steward',
    '    balance roundrobin',
    '    option httpchk GET /api/ready',
    '    http-check expect status 200',
    '    default-server inter 1s fall 2 rise 2',
    '    # Which process answered (for operators reading logs; the cluster test reads it too).',
    '    http-response set-header X-Steward-Server %s',
    ...o.servers.map((s) => `    server ${s.name} ${s.host}:${s.port} check`),
  ];
  const smtp = o.servers.filter((s) => s.smtpPort);
  if (o.smtpBind && smtp.length) {
    lines.push(
      '',
      'frontend steward_smtp',
      '    mode tcp',
      '    option tcplog',
      `    bind ${o.smtpBind}`,
      '    default_backend steward_smtp',
      '',
      'backend steward_smtp',
      '    mode tcp',
      '    balance roundrobin',
      '    option smtpchk HELO lb.steward.invalid',
      '    default-server inter 1s fall 2 rise 2',
      ...smtp.map((s) => `    server ${s.name} ${s.host}:${s.smtpPort} check`),
    );
  }
  return lines.join('\n') + '\n';
}

export type Haproxy = {
  config: string;
  /** Each server's state by name as HAProxy sees it now: UP, DOWN, ... (the HTTP backend). */
  states: (backend?: string) => Promise<Record<string, string>>;
  /** Waits until `name` has `state` in `backend`. */
  waitFor: (name: string, state: 'UP' | 'DOWN', backend?: string, timeoutMs?: number) => Promise<void>;
  output: () => string;
  stop: () => Promise<void>;
};

export const HAPROXY = process.env.STEWARD_HAPROXY ?? '/usr/sbin/haproxy';

/** Starts HAProxy in the foreground with the rendered configuration (and an admin socket). */
export async function startHaproxy(o: Omit<HaproxyOptions, 'statsSocket'>): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-haproxy-'));
  const statsSocket = path.join(dir, 'admin.sock');
  const config = haproxyConfig({ ...o, statsSocket });
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const check = spawn(HAPROXY, ['-c', '-q', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let checkOut = '';
  check.stdout!.on('data', (d: Buffer) => (checkOut += d));
  check.stderr!.on('data', (d: Buffer) => (checkOut += d));
  const code = await new Promise<number | null>((r) => check.once('exit', r));
  if (code !== 0) throw new Error(`haproxy refused its configuration:\n${checkOut}\n${config}`);

  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d));
  child.stderr!.on('data', (d: Buffer) => (output += d));

  const command = (cmd: string) =>
    new Promise<string>((resolve, reject) => {
      const s = net.connect(statsSocket);
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('end', () => resolve(out));
      s.on('error', reject);
      s.end(cmd + '\n');
    });
  const states = async (backend = 'steward') => {
    const csv = await command('show stat');
    const [header, ...rows] = csv.split('\n').filter((l) => l.trim());
    const cols = header!.replace(/^# /, '').split(',');
    const at = (name: string) => cols.indexOf(name);
    const out: Record<string, string> = {};
    for (const r of rows) {
      const f = r.split(',');
      if (f[at('pxname')] === backend && !['FRONTEND', 'BACKEND'].includes(f[at('svname')]!)) out[f[at('svname')]!] = f[at('status')]!.split(' ')[0]!;
    }
    return out;
  };
  const waitFor = async (name: string, state: 'UP' | 'DOWN', backend = 'steward', timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const now = await states(backend).catch(() => ({}) as Record<string, string>);
      if (now[name] === state) return;
      if (child.exitCode !== null) throw new Error(`haproxy exited:\n${output}`);
      if (Date.now() > until) throw new Error(`${backend}/${name} not ${state} within ${timeoutMs} ms (${JSON.stringify(now)})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  for (const s of o.servers) await waitFor(s.name, 'UP');
  return {
    config,
    states,
    waitFor,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
