import { connect, type Socket } from 'node:net';
import { z } from 'zod';

/*
 * Where a checking daemon listens, and one request/answer exchange with it. spamd and clamd both
 * serve one request per connection over TCP or a Unix socket, and both answer and then close, so
 * a conversation is: connect, write, read until the daemon ends (or the answer is complete),
 * all within one deadline: mail waits in the SMTP dialogue while it is checked.
 */

export type DaemonTarget = ({ host: string; port: number } | { path: string }) & { timeoutMs: number };

/** How long one check may take when the URL does not say (`?timeout=<ms>`). */
export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;
/** An answer longer than this is not one these daemons give: the exchange is cut off. */
const MAX_ANSWER_BYTES = 64 * 1024;

const Timeout = z.coerce.number().int().min(100).max(120_000);

/**
 * `<scheme>://host[:port][?timeout=ms]` (scheme the daemon's name or `tcp`) or `unix:/path/to.sock`.
 * Throws, naming the variable, on anything else: a typo must not quietly turn a check off.
 */
export function parseDaemonUrl(variable: string, value: string, scheme: string, defaultPort: number): DaemonTarget {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${variable} must be a URL such as ${scheme}://127.0.0.1:${defaultPort}, not "${value}"`);
  }
  const timeout = Timeout.safeParse(url.searchParams.get('timeout') ?? DEFAULT_CHECK_TIMEOUT_MS);
  if (!timeout.success) throw new Error(`${variable}: timeout must be a number of milliseconds between 100 and 120000`);
  if (url.protocol === 'unix:') {
    if (!url.pathname || url.pathname === '/') throw new Error(`${variable}: a unix: URL names the socket's path (unix:/run/${scheme}.sock)`);
    return { path: decodeURIComponent(url.pathname), timeoutMs: timeout.data };
  }
  if (url.protocol !== `${scheme}:` && url.protocol !== 'tcp:') throw new Error(`${variable} must start with ${scheme}://, tcp:// or unix:, not "${url.protocol}"`);
  if (!url.hostname) throw new Error(`${variable} must name a host (${scheme}://127.0.0.1:${defaultPort})`);
  const port = url.port ? Number(url.port) : defaultPort;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, timeoutMs: timeout.data };
}

/** What the daemon was, for log lines and a stored `error` detail. */
export const describeTarget = (t: DaemonTarget) => ('path' in t ? `unix:${t.path}` : `${t.host}:${t.port}`);

/**
 * Sends `request` (written by `write`, which may end the writing side) and collects the answer
 * until the daemon closes the connection or `complete` says the answer is whole. Rejects on a
 * connection failure, a timeout, or an answer that is too long.
 */
export function converse(target: DaemonTarget, write: (socket: Socket) => void, complete: (answer: Buffer) => boolean = () => false): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const socket = 'path' in target ? connect(target.path) : connect(target.port, target.host);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(() => finish(new Error(`no answer from ${describeTarget(target)} within ${target.timeoutMs} ms`)), target.timeoutMs);
    socket.once('connect', () => write(socket));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return finish(new Error(`the answer from ${describeTarget(target)} is longer than ${MAX_ANSWER_BYTES} bytes`));
      if (complete(Buffer.concat(chunks))) finish(null);
    });
    socket.once('end', () => finish(null));
    // A daemon that answers and closes before it has read everything (clamd's size limit) makes the
    // writes fail: what it said first is the answer.
    socket.on('error', (err) => finish(size > 0 ? null : err));
  });
}
