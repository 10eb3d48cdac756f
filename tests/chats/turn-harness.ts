import http from 'node:http';
import { expect } from 'vitest';
import { call, type AccountFixture } from '../helpers/client';
import type { TestServer } from '../helpers/server';

/** One server-sent event as a client reads it. */
export type Sse = { id: number | null; event: string | null; data: any };

/** Parses `id:`/`event:`/`data:` blocks; comment lines (`: heartbeat`) are counted, not returned. */
export function sseReader() {
  let buffer = '';
  let comments = 0;
  const feed = (chunk: string): Sse[] => {
    buffer += chunk;
    const out: Sse[] = [];
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      if (lines.every((l) => l.startsWith(':'))) {
        comments += lines.length;
        continue;
      }
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
      const id = field('id');
      const data = field('data');
      out.push({ id: id === null ? null : Number(id), event: field('event'), data: data === null ? null : JSON.parse(data) });
    }
    return out;
  };
  return { feed, comments: () => comments };
}

export type OpenStream = {
  status: Promise<number>;
  headers: Promise<http.IncomingHttpHeaders>;
  events: Sse[];
  /** The raw text received, in order. */
  raw: () => string;
  comments: () => number;
  ended: () => boolean;
  /** Resolves once the server closed the stream. */
  done: Promise<Sse[]>;
  hangUp: () => void;
  /** Resolves with the first event matching, waiting as long as it takes (the test's timeout bounds it). */
  waitFor: (match: (e: Sse) => boolean, what?: string, timeoutMs?: number) => Promise<Sse>;
};

/**
 * A request over node:http, so the test decides when to hang up; its answer is read as
 * server-sent events as they arrive (a JSON error answer ends up in `raw`).
 */
export function openStream(server: TestServer, path: string, opts: { key: string; body?: unknown; headers?: Record<string, string>; method?: string }): OpenStream {
  const url = new URL(server.baseUrl + path);
  const reader = sseReader();
  const events: Sse[] = [];
  let text = '';
  let ended = false;
  let req!: http.ClientRequest;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  let resolveStatus!: (n: number) => void;
  let resolveHeaders!: (h: http.IncomingHttpHeaders) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const headers = new Promise<http.IncomingHttpHeaders>((r) => (resolveHeaders = r));
  const done = new Promise<Sse[]>((resolve) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    req = http.request(
      url,
      {
        method: opts.method ?? (body ? 'POST' : 'GET'),
        headers: { Authorization: `Bearer ${opts.key}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...(opts.headers ?? {}) },
      },
      (res) => {
        resolveStatus(res.statusCode ?? 0);
        resolveHeaders(res.headers);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          events.push(...reader.feed(chunk));
          notify();
        });
        const finish = () => {
          ended = true;
          notify();
          resolve(events);
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', () => {});
      },
    );
    req.on('error', () => {
      ended = true;
      resolveStatus(0);
      notify();
      resolve(events);
    });
    if (body) req.write(body);
    req.end();
  });
  const waitFor = (match: (e: Sse) => boolean, what = 'an event', timeoutMs = 20_000) =>
    new Promise<Sse>((resolve, reject) => {
      const check = () => {
        const hit = events.find(match);
        if (hit) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(hit);
        } else if (ended) {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`the stream ended without ${what}: ${text.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms: ${text.slice(-2000)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  return { status, headers, events, raw: () => text, comments: reader.comments, ended: () => ended, done, hangUp: () => req.destroy(), waitFor };
}

/** POST /chats for the person's assistant: the chat's id. */
export async function newChat(server: TestServer, p: { key: string; assistantId: string }, body: Record<string, unknown> = {}): Promise<string> {
  const created = await call(server, '/chats', { key: p.key, body: { assistantId: p.assistantId, ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.chat.id as string;
}

/** Polls until `fn` gives a value. */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const interimText = (events: Sse[], step?: number) =>
  events
    .filter((e) => e.event === 'interim_message' && (step === undefined || e.data.step === step))
    .map((e) => e.data.delta)
    .join('');

export type { AccountFixture };
