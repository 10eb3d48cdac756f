import type { ClientRequest } from 'node:http';

/*
 * How long any outbound connection may take, in one place (issue 49: a provider that accepts a
 * connection and never answers must not hold a durable step, and with it a worker, forever).
 * Every provider client reads its figures here: connecting (TCP) may take CONNECT_MS;
 * a whole request, from the first byte sent to the last byte of the answer, its kind's total.
 * Each total is below the deadline of the steps that make such calls (inngest/step-deadlines.ts),
 * so a call ends with its own error, saying whether it may have reached the provider, before the
 * step's deadline has to end it.
 *
 * Clients built on fetch (Gmail, Graph, OAuth token endpoints, audio, models) get their total as
 * an AbortSignal; Node's fetch connects within 10 s by its own default, the same as CONNECT_MS.
 * Clients built on node:http (Slack, Teams, Twilio, Sendblue, GitHub, MCP, webhooks) call
 * `applyTimeouts`.
 */

/** Opening a connection to a provider. */
export const CONNECT_MS = 10_000;

/** Whole requests, by kind. */
export const TOTAL_MS = {
  /** Mailbox and calendar APIs (Gmail, Microsoft Graph, CalDAV): a send among them. */
  mailbox: 30_000,
  /** Chat and text providers (Slack, Teams' Bot Connector, Twilio, Sendblue): a send among them. */
  messaging: 15_000,
  /** GitHub's REST API and its OAuth token endpoint. */
  github: 20_000,
  /** OAuth token endpoints and a provider's metadata (Teams' token endpoint, OpenID keys). */
  token: 10_000,
  /** One attempt at an outbound webhook (STEWARD_WEBHOOK_TIMEOUT_MS may set another). */
  webhook: 10_000,
  /** Until an MCP server's answer begins (its body may be a long-lived event stream; the MCP SDK times each request itself). */
  mcpAnswer: 60_000,
  /** A model call, streamed answer included: under a model step's deadline. */
  model: 10 * 60_000,
  /** Audio transcription or speech. */
  audio: 60_000,
  /** A media file a provider holds for a message (a picture sent by text). */
  media: 20_000,
} as const;

/**
 * SMTP (server/mail/mailer.ts), nodemailer's options of the same names; SMTP_URL's query
 * (`?socketTimeout=…`) overrides them. `totalMs` bounds one message from taking a connection to
 * the server's answer, `probeMs` the check a pooled connection passes before it is reused.
 */
export const SMTP_TIMEOUTS = {
  connectionTimeout: CONNECT_MS,
  greetingTimeout: 10_000,
  /** Silence on an open connection (no answer to a command, or to the message). */
  socketTimeout: 30_000,
  totalMs: 45_000,
  probeMs: 2_000,
} as const;

/** The error code of a connection that did not open in time: nothing was sent. */
export const CONNECT_TIMEOUT_CODE = 'ECONNECTTIMEDOUT';

const fail = (req: ClientRequest, message: string, code: string) => req.destroy(Object.assign(new Error(message), { code }));

/**
 * A node:http(s) request must connect within `connectMs` (a reused keep-alive socket is connected
 * already); past it, the request is destroyed with `CONNECT_TIMEOUT_CODE`: nothing can have arrived.
 */
export function connectWithin(req: ClientRequest, connectMs: number = CONNECT_MS): void {
  req.on('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => fail(req, `no connection within ${connectMs} ms`, CONNECT_TIMEOUT_CODE), connectMs);
    timer.unref();
    socket.once('connect', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
  });
}

/**
 * A node:http(s) request with both timeouts: CONNECT_MS (or `connectMs`) to connect, `totalMs` for
 * the whole exchange, answer included; past it, the request is destroyed with `ETIMEDOUT` (it may
 * have arrived).
 */
export function applyTimeouts(req: ClientRequest, totalMs: number, connectMs: number = CONNECT_MS): void {
  connectWithin(req, connectMs);
  const total = setTimeout(() => fail(req, `no answer within ${totalMs} ms`, 'ETIMEDOUT'), totalMs);
  total.unref();
  req.once('close', () => clearTimeout(total));
  req.once('response', (res) => res.once('close', () => clearTimeout(total)));
}

/** For an answer that streams for as long as it lasts (an event stream): its head must come within `ms`. */
export function answerWithin(req: ClientRequest, ms: number, connectMs: number = CONNECT_MS): void {
  connectWithin(req, connectMs);
  const head = setTimeout(() => fail(req, `no answer within ${ms} ms`, 'ETIMEDOUT'), ms);
  head.unref();
  req.once('response', () => clearTimeout(head));
  req.once('close', () => clearTimeout(head));
}

/** `signal`, ended also after `ms`: for fetch-based clients, whose caller may pass a signal of its own. */
export function totalSignal(ms: number, signal?: AbortSignal | null): AbortSignal {
  return signal ? AbortSignal.any([AbortSignal.timeout(ms), signal]) : AbortSignal.timeout(ms);
}
