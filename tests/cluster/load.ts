import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import WebSocket from 'ws';
import { newUser, userKey, type AccountFixture } from '../helpers/client';
import type { TestServer } from '../helpers/server';
import type { ClusterWorld } from './world';

/*
 * The clients of the cluster test, each recording every attempt it makes (when it started, when
 * it ended, how): API reads and writes, tasks, mail over SMTP, live views. A client that loses a
 * request does what a careful client does: it retries with the same Idempotency-Key (the same
 * Message-ID for mail), so nothing is sent twice and nothing is lost on the client's side.
 */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request as the client saw it; `key`: its Idempotency-Key, the same on every retry of one write. */
export type Attempt = { kind: string; start: number; end: number; status: number; error?: string; key?: string };

export class Attempts {
  readonly list: Attempt[] = [];
  add(kind: string, start: number, status: number, error?: string, key?: string) {
    this.list.push({ kind, start, end: Date.now(), status, error, key });
  }
  /** A request through the load balancer; status 0 when no answer came. */
  async http(world: ClusterWorld, kind: string, path: string, init: { method?: string; key: string; body?: unknown; headers?: Record<string, string> }) {
    const start = Date.now();
    try {
      const res = await fetch(world.lb.baseUrl + path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { Authorization: `Bearer ${init.key}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(init.headers ?? {}) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      this.add(kind, start, res.status, res.status >= 400 ? text.slice(0, 300) : undefined, init.headers?.['Idempotency-Key']);
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      return { status: res.status, body, server: res.headers.get('x-steward-server') };
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      this.add(kind, start, 0, `${(e as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}`, init.headers?.['Idempotency-Key']);
      return { status: 0, body: null, server: null };
    }
  }
}

export const failed = (a: Attempt) => a.status === 0 || a.status >= 500;

/**
 * Sends until the answer is one of `ok`, with the same Idempotency-Key each time. A write whose
 * first attempt died with its process holds its key until the key's lease lapses (two minutes:
 * server/http/idempotency.ts); meanwhile retries are answered 409 `idempotency_key_in_use`, and
 * the client goes on retrying, as the answer asks.
 */
export async function untilAnswered(attempts: Attempts, world: ClusterWorld, kind: string, path: string, init: { key: string; body?: unknown }, ok = [200, 201], patienceMs = 180_000) {
  const headers = { 'Idempotency-Key': randomBytes(12).toString('hex') };
  for (const until = Date.now() + patienceMs; Date.now() < until; await sleep(500)) {
    const r = await attempts.http(world, kind, path, { ...init, headers });
    if (ok.includes(r.status)) return r;
  }
  throw new Error(`${kind} ${path} was not answered within ${patienceMs / 1000} s`);
}

export type Person = { account: AccountFixture; id: string; email: string; key: string; assistantId: string; assistantEmail: string };

/** A user of the account with a key and an assistant of their own (set up before the load). */
export async function person(world: ClusterWorld, account: AccountFixture): Promise<Person> {
  const lb = world.lb as unknown as TestServer;
  const u = await newUser(lb, account);
  const key = await userKey(lb, account, u.id);
  const res = await fetch(`${world.lb.baseUrl}/users/${u.id}/assistants`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }) });
  const hired = (await res.json()) as { assistant: { id: string; email: string } };
  return { account, id: u.id, email: u.email, key, assistantId: hired.assistant.id, assistantEmail: hired.assistant.email };
}

/** API reads and writes as fast as one client goes, until `stop()`. */
export async function apiClient(world: ClusterWorld, people: Person[], attempts: Attempts, stop: () => boolean) {
  let i = 0;
  while (!stop()) {
    const p = people[i++ % people.length]!;
    const roll = Math.random();
    if (roll < 0.4) await attempts.http(world, 'read /me', '/me', { key: p.key });
    else if (roll < 0.8) await attempts.http(world, 'read /tasks', '/tasks?limit=5', { key: p.key });
    else await untilAnswered(attempts, world, 'write /tasks', '/tasks', { key: p.key, body: { title: 'A draft', assistant: p.assistantId } }, [201]);
    await sleep(40);
  }
}

/** A task with its run queued (created, then processed): what the run must finish. */
export async function startTask(world: ClusterWorld, p: Person, attempts: Attempts, marker: string) {
  const created = await untilAnswered(attempts, world, 'write /tasks', '/tasks', { key: p.key, body: { title: `${marker} Plan the week`, assistant: p.assistantId } }, [201]);
  const taskId = created.body.task.id as string;
  await untilAnswered(attempts, world, 'write /tasks/process', `/tasks/${taskId}/process`, { key: p.key, body: { message: `${marker} Monday first, please.` } });
  return taskId;
}

/**
 * One mail from the owner to their assistant through the load balancer's SMTP port, delivered
 * as a mail server does: tried again (same Message-ID) until it is accepted with a 250.
 */
export async function sendMail(world: ClusterWorld, p: Person, attempts: Attempts, marker: string): Promise<{ messageId: string; subject: string }> {
  const messageId = `<${randomBytes(10).toString('hex')}@example.com>`;
  const subject = `${marker} A note`;
  for (let i = 0; i < 40; i++) {
    const start = Date.now();
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: world.lbSmtpPort, secure: false, ignoreTLS: true, name: 'mx.example.com', connectionTimeout: 5_000, socketTimeout: 15_000 });
    try {
      await transport.sendMail({ from: p.email, to: p.assistantEmail, subject, text: 'Please keep this in mind.', messageId });
      attempts.add('smtp', start, 250);
      return { messageId, subject };
    } catch (e) {
      attempts.add('smtp', start, 0, (e as Error).message);
      await sleep(500);
    } finally {
      transport.close();
    }
  }
  throw new Error(`mail ${marker} was never accepted`);
}

/** A live view of a handoff through the load balancer: the messages it received, and whether it is open. */
export function liveView(world: ClusterWorld, sessionUrl: string) {
  const u = new URL(sessionUrl);
  const handoffId = u.pathname.split('/').pop()!;
  const ws = new WebSocket(`${world.lb.origin.replace('http', 'ws')}/api/workspace/live/${handoffId}?token=${encodeURIComponent(u.searchParams.get('token')!)}`);
  const messages: { type: string; [k: string]: any }[] = [];
  ws.on('message', (raw) => messages.push(JSON.parse(String(raw))));
  let closedAt: number | null = null;
  ws.on('close', () => (closedAt = Date.now()));
  ws.on('error', () => undefined);
  const opened = new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(0));
  });
  const next = async (pred: (m: { type: string; [k: string]: any }) => boolean, timeoutMs = 30_000) => {
    for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(50)) {
      const m = messages.find(pred);
      if (m) return m;
    }
    throw new Error(`live view: no such message within ${timeoutMs} ms: ${JSON.stringify(messages.map((m) => m.type))}`);
  };
  return { ws, opened, messages, next, closedAt: () => closedAt, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}
