import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import type { WorkspaceDirs } from '../browser/launch';
import { createCgroup, type SandboxCgroup } from './cgroup';
import { SandboxGone, SupervisorChannel, type Request } from './channel';
import { shellConfig, type ShellConfig } from './config';
import { prepareHome } from './host-access';
import { sandboxUsage } from './measure';
import { roomLeft, watchQuota } from './quota';
import { startRelay, type Relay } from './relay';
import { launchPlan } from './sandbox-args';
import type { RunResult } from './supervisor';
import { runtimeDir } from './system-view';

/*
 * One user's running sandbox: bubblewrap around the supervisor (supervisor.ts), the relay to
 * the egress proxy, and the cgroup when there is one. Held by the process that started it
 * (manager.ts), like the user's browser.
 */

const START_TIMEOUT_MS = 15_000;
/** Extra time the supervisor gets to report a killed command before the whole sandbox is stopped. */
const GRACE_MS = 10_000;

export type RunOptions = {
  timeoutMs: number;
  cwd?: string;
  env?: Record<string, string>;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** For kill(): the job's id. */
  id?: string;
};

export type CommandResult = RunResult & { stoppedForDisk: boolean };

export const sandboxKey = (accountId: string, userId: string) => createHash('sha256').update(`${accountId}/${userId}`).digest('hex').slice(0, 16);

function unavailable(message: string) {
  return new AppError(503, 'shell_unavailable', message);
}

export class UserSandbox {
  readonly startedAt = new Date();
  lastActiveAt = new Date();
  private stopping: Promise<void> | undefined;
  private holds = 0;
  private cpuMarks: { at: number; cpu: number }[] = [];
  /** Up to when running time has been added to the usage record. */
  accountedAt = Date.now();

  private constructor(
    readonly accountId: string,
    readonly userId: string,
    readonly dirs: WorkspaceDirs,
    private readonly child: ChildProcess,
    private readonly channel: SupervisorChannel,
    private readonly relay: Relay,
    readonly cgroup: SandboxCgroup | null,
    readonly cfg: ShellConfig,
  ) {}

  /** Starts the sandbox and waits until its supervisor answers. */
  static async start(accountId: string, userId: string, dirs: WorkspaceDirs, onExit: (s: UserSandbox) => void): Promise<UserSandbox> {
    const cfg = shellConfig();
    if (!cfg.enabled) throw unavailable('The workspace shell is turned off for this deployment (STEWARD_SHELL=off)');
    for (const tool of [cfg.bwrap, '/usr/bin/prlimit', ...(cfg.hostUid !== null ? ['/usr/bin/setpriv'] : [])]) {
      if (!existsSync(tool)) throw unavailable(`The workspace shell needs ${tool} (Debian packages bubblewrap and util-linux)`);
    }
    await prepareHome(dirs, cfg.hostUid, cfg.hostGid);
    const key = sandboxKey(accountId, userId);
    const [runtime, relay, cgroup] = await Promise.all([runtimeDir(), startRelay(key), createCgroup(key, cfg)]);
    try {
      // A browser starting at this moment may close the folders on the way to the home for an instant (browser/launch.ts): one retry.
      for (let attempt = 1; ; attempt++) {
        try {
          return await UserSandbox.launch(accountId, userId, dirs, cfg, relay, cgroup, runtime, onExit);
        } catch (e) {
          if (attempt >= 2 || !(e instanceof AppError) || !/source path/.test(e.message)) throw e;
          await prepareHome(dirs, cfg.hostUid, cfg.hostGid);
        }
      }
    } catch (e) {
      await relay.close();
      await cgroup?.remove();
      throw e;
    }
  }

  private static async launch(
    accountId: string,
    userId: string,
    dirs: WorkspaceDirs,
    cfg: ShellConfig,
    relay: Relay,
    cgroup: SandboxCgroup | null,
    runtime: { dir: string; etc: string },
    onExit: (s: UserSandbox) => void,
  ): Promise<UserSandbox> {
    const plan = launchPlan({ cfg, homePath: dirs.home, socketPath: relay.socketPath, runtime, procsFiles: cgroup?.procsFiles ?? [], hasCgroup: cgroup !== null });
    // The launcher's own environment is not the sandbox's (bubblewrap clears it), but it is kept bare anyway.
    const child = spawn(plan.file, plan.args, { env: { PATH: '/usr/bin:/bin', NODE_ENV: process.env.NODE_ENV }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (t: string) => {
      if (stderr.length < 4000) stderr += t;
    });
    child.stdin!.on('error', () => undefined);
    const channel = new SupervisorChannel(child);
    const sandbox = new UserSandbox(accountId, userId, dirs, child, channel, relay, cgroup, cfg);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        channel.ready,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), START_TIMEOUT_MS))),
      ]);
    } catch {
      child.kill('SIGKILL');
      // What bubblewrap said may still be on its way.
      await new Promise((r) => (child.stderr!.readableEnded ? r(null) : (child.stderr!.once('end', r), setTimeout(r, 1000).unref())));
      logger.warn({ stderr, accountId, userId }, 'workspace shell sandbox did not start');
      throw unavailable(`The workspace shell could not be started${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`);
    } finally {
      clearTimeout(timer);
    }
    if (child.exitCode !== null || child.signalCode !== null) throw unavailable('The workspace shell stopped right after it started');
    // From here on the sandbox is the manager's: its end (idle stop, crash, OOM of the supervisor) is recorded and forgotten.
    child.once('exit', () => {
      void sandbox.stop();
      onExit(sandbox);
    });
    return sandbox;
  }

  get running() {
    return this.stopping === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Commands and jobs under way: an idle stop waits for them. */
  get busy(): boolean {
    return this.holds > 0 || this.channel.busy > 0;
  }

  touch() {
    this.lastActiveAt = new Date();
  }

  /** Keeps the sandbox from its idle stop until the returned release is called (a coding job between commands). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.touch();
    };
  }

  /**
   * Runs a command in a nested sandbox of its own, within the time limit, the file-size limit of
   * what is left under the disk quota and the quota watch. Never throws for the command's own
   * failure: that is in the result.
   */
  async run(command: string, opts: RunOptions): Promise<CommandResult> {
    const fileBytes = await roomLeft(this.dirs);
    const id = opts.id ?? randomBytes(8).toString('hex');
    this.holds++;
    this.touch();
    let stoppedForDisk = false;
    const stopWatch = watchQuota(this.dirs, () => {
      stoppedForDisk = true;
      void this.channel.kill(id).catch(() => undefined);
    });
    let guard: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        this.channel.run(id, { command, cwd: opts.cwd, env: opts.env, timeoutMs: opts.timeoutMs, fileBytes, cpuSeconds: opts.timeoutMs / 1000 + 1, outputBytes: this.cfg.outputBytes, stream: !!opts.onOutput }, opts.onOutput),
        new Promise<never>((_, reject) => {
          // A supervisor that does not report a killed command is broken: the sandbox goes, and with it the command.
          guard = setTimeout(() => {
            void this.stop();
            reject(new SandboxGone('the sandbox did not answer and was stopped'));
          }, opts.timeoutMs + GRACE_MS);
        }),
      ]);
      return { ...result, stoppedForDisk };
    } finally {
      clearTimeout(guard);
      stopWatch();
      this.holds--;
      this.touch();
    }
  }

  kill(id: string): Promise<unknown> {
    return this.channel.kill(id);
  }

  /** A file request to the supervisor (write, read, delete, clean). */
  async file(r: Request): Promise<unknown> {
    this.touch();
    this.holds++;
    try {
      return await this.channel.request(r);
    } finally {
      this.holds--;
    }
  }

  /** Stops the sandbox (idempotent): every process in it ends; the home folder stays. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.child.exitCode === null && this.child.signalCode === null) {
        const exited = new Promise((r) => this.child.once('exit', r));
        // Closing its stdin ends the supervisor, and bubblewrap ends everything in the sandbox with it.
        this.child.stdin!.end();
        const forced = setTimeout(() => this.child.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(forced);
      }
      await this.relay.close();
      await this.cgroup?.remove();
    })();
    return this.stopping;
  }

  /** Memory and CPU of the sandbox; the one-minute CPU load from the marks the manager keeps. */
  async measure() {
    const now = Date.now();
    const usage = await sandboxUsage(this.child.pid, this.cgroup);
    let cpuLoadAvg: number | null = null;
    if (usage.cpuSeconds !== null) {
      const since = this.cpuMarks.find((m) => now - m.at <= 90_000 && now - m.at >= 1000) ?? null;
      const [from, cpu] = since ? [since.at, since.cpu] : [this.startedAt.getTime(), 0];
      cpuLoadAvg = Math.round((Math.max(0, usage.cpuSeconds - cpu) / Math.max(1, (now - from) / 1000)) * 1000) / 1000;
    }
    return { memoryBytes: usage.memoryBytes, cpuSeconds: usage.cpuSeconds, cpuLoadAvg, uptimeSeconds: Math.round((now - this.startedAt.getTime()) / 1000) };
  }

  /** Called on every tick of the manager: keeps about a minute of CPU marks. */
  async markCpu() {
    const { cpuSeconds } = await sandboxUsage(this.child.pid, this.cgroup);
    if (cpuSeconds === null) return;
    const now = Date.now();
    this.cpuMarks.push({ at: now, cpu: cpuSeconds });
    while (this.cpuMarks.length > 2 && now - this.cpuMarks[1]!.at >= 60_000) this.cpuMarks.shift();
  }
}
