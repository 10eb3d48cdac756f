import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import readline from 'node:readline';
import { z } from 'zod';
import type { RunResult, SupervisorRequest } from './supervisor';

/*
 * Steward's side of the conversation with a sandbox's supervisor (supervisor.ts): requests out
 * on its stdin, answers in on its stdout, one JSON message a line, matched by id. Everything
 * read back is checked with Zod: the supervisor runs where the user's programs run.
 */

const Message = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('result'), id: z.string(), ok: z.boolean(), data: z.unknown().optional(), error: z.string().optional() }),
  z.object({
    type: z.literal('done'),
    id: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
    stdoutBytes: z.number(),
    stderrBytes: z.number(),
    ms: z.number(),
  }),
  z.object({ type: z.literal('output'), id: z.string(), stream: z.enum(['stdout', 'stderr']), text: z.string() }),
]);

/** Why a sandbox's request went unanswered: it stopped (idle, cleanup, shutdown) or crashed. */
export class SandboxGone extends Error {}

type Waiter = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type RunWaiter = { resolve: (r: RunResult) => void; reject: (e: Error) => void; onOutput?: (stream: 'stdout' | 'stderr', text: string) => void };

type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;
export type Request = Distribute<Exclude<SupervisorRequest, { op: 'run' }>>;
export type RunRequest = Omit<Extract<SupervisorRequest, { op: 'run' }>, 'op' | 'id'>;

export class SupervisorChannel {
  private readonly waiting = new Map<string, Waiter>();
  private readonly runs = new Map<string, RunWaiter>();
  private closedWith: Error | null = null;
  readonly ready: Promise<void>;

  constructor(private readonly child: ChildProcess) {
    let markReady!: () => void;
    let failReady!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let parsed;
      try {
        parsed = Message.safeParse(JSON.parse(line));
      } catch {
        return;
      }
      if (!parsed.success) return;
      const m = parsed.data;
      if (m.type === 'ready') return markReady();
      if (m.type === 'output') return this.runs.get(m.id)?.onOutput?.(m.stream, m.text);
      if (m.type === 'done') {
        const w = this.runs.get(m.id);
        this.runs.delete(m.id);
        const { type: _type, id: _id, ...result } = m;
        return w?.resolve(result);
      }
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (!w) return;
      if (m.ok) w.resolve(m.data);
      else w.reject(new Error(m.error ?? 'refused'));
    });
    child.once('exit', (code, signal) => {
      const e = new SandboxGone(`the sandbox stopped (${signal ?? `exit ${code}`})`);
      this.closedWith = e;
      failReady(e);
      for (const w of [...this.waiting.values(), ...this.runs.values()]) w.reject(e);
      this.waiting.clear();
      this.runs.clear();
    });
  }

  private write(message: SupervisorRequest) {
    if (this.closedWith) throw this.closedWith;
    this.child.stdin!.write(JSON.stringify(message) + '\n');
  }

  /** A file request or a control request; rejects with the supervisor's reason. */
  request(r: Request): Promise<unknown> {
    const id = randomBytes(8).toString('hex');
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      try {
        this.write({ ...r, id } as SupervisorRequest);
      } catch (e) {
        this.waiting.delete(id);
        reject(e as Error);
      }
    });
  }

  /** Runs a command; `id` names it for kill(). */
  run(id: string, r: RunRequest, onOutput?: RunWaiter['onOutput']): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      this.runs.set(id, { resolve, reject, onOutput });
      try {
        this.write({ op: 'run', id, ...r });
      } catch (e) {
        this.runs.delete(id);
        reject(e as Error);
      }
    });
  }

  kill(target: string): Promise<unknown> {
    return this.request({ op: 'kill', target });
  }

  /** Commands under way right now. */
  get busy(): number {
    return this.runs.size;
  }
}
