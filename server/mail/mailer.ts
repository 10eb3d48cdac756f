import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { Db } from '@/db/client';
import { mailOutbox } from '@/db/schema';
import { SMTP_TIMEOUTS } from '@/server/http/outbound-timeouts';
import { logger } from '@/server/logger';

export type Mail = {
  accountId: string | null;
  to: string;
  subject: string;
  text: string;
  /** Secrets inside the text (sign-in links): sent, but never stored in the outbox. */
  redact?: string[];
  /** A notice the user may answer: its Message-ID (noted by the channel layer) and where replies go (the assistant's address). */
  messageId?: string;
  replyTo?: string;
};

/**
 * What marks Steward's own notices as machine-written (RFC 3834): vacation responders and other
 * automatic answerers must not reply to them, or a sign-in link and an out-of-office notice
 * could answer each other forever. Exchange and Outlook honour only their own header, so it
 * comes too. An assistant's dispatched mail (deliverMail) is a person's message and has neither.
 */
export const AUTOMATED_HEADERS = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' } as const;

/** nodemailer's timeouts for every SMTP connection (server/http/outbound-timeouts.ts); SMTP_URL's query wins. */
const connectionTimeouts = {
  connectionTimeout: SMTP_TIMEOUTS.connectionTimeout,
  greetingTimeout: SMTP_TIMEOUTS.greetingTimeout,
  socketTimeout: SMTP_TIMEOUTS.socketTimeout,
};

/**
 * Sends one of Steward's automated messages (sign-in links, approval requests, invitations,
 * notices) through the SMTP server in SMTP_URL (nodemailer). Without one, the message is only
 * recorded in the outbox and logged — it is never reported as delivered.
 */
export async function sendMail(db: Db, mail: Mail): Promise<{ status: 'sent' | 'recorded' | 'failed' }> {
  const url = process.env.SMTP_URL;
  let status: 'sent' | 'recorded' | 'failed' = 'recorded';
  let error: string | null = null;
  if (url) {
    try {
      await nodemailer.createTransport({ ...connectionTimeouts, url }).sendMail({
        from: process.env.MAIL_FROM ?? 'Steward <no-reply@steward.local>',
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        headers: { ...AUTOMATED_HEADERS },
        ...(mail.messageId ? { messageId: mail.messageId } : {}),
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      });
      status = 'sent';
    } catch (e) {
      status = 'failed';
      error = (e as Error).message;
      logger.warn({ err: e, to: mail.to }, 'mail: SMTP refused the message');
    }
  } else {
    // Development default: the log is where the message (a sign-in link, say) can be read.
    logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail: no SMTP_URL, recorded only');
  }
  const { redact = [], messageId: _messageId, replyTo: _replyTo, ...record } = mail;
  const stored = redact.reduce((t, secret) => t.split(secret).join('[redacted]'), record.text);
  await db.insert(mailOutbox).values({ ...record, text: stored, status, error });
  return { status };
}

/** A message an assistant sends for a user (an approved dispatch): exactly these headers and this text. */
export type OutboundMail = {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  /** The same message as HTML: sent as multipart/alternative beside the text (server/mail/rich-text.ts). */
  html?: string;
  /** `<id@host>`, chosen before sending: a send whose answer was lost is recognised by it. */
  messageId: string;
  /** An iTIP message (RFC 5546): the text/calendar alternative with this method, and the .ics attached. */
  calendar?: { method: 'REQUEST' | 'CANCEL'; content: string };
  /** The thread it answers: In-Reply-To and References (Message-IDs with their angle brackets). */
  inReplyTo?: string | null;
  references?: string[];
  /** A notice of Steward's rather than a person's message: marked as automated (RFC 3834). */
  automated?: boolean;
  attachments?: Array<{ filename: string; contentType: string; content: Buffer }>;
};

/**
 * The one way a message is built (RFC 5322, by nodemailer's MailComposer), for the SMTP adapter
 * below and for mail sent from the user's own mailbox (server/mailboxes/send.ts): exactly the
 * given headers and text, dated now, with the thread headers, the automated marks, attachments
 * and an iTIP alternative when given. Compiled, not yet rendered: `build()` renders it.
 */
export function composeMail(mail: Omit<OutboundMail, 'cc' | 'bcc'> & { cc?: string[]; bcc?: string[] }) {
  return new MailComposer({
    from: mail.from,
    to: mail.to,
    cc: mail.cc,
    bcc: mail.bcc,
    subject: mail.subject,
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references?.length ? { references: mail.references } : {}),
    ...(mail.automated ? { headers: { ...AUTOMATED_HEADERS } } : {}),
    ...(mail.attachments?.length ? { attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })) } : {}),
    date: new Date(),
    ...(mail.calendar ? { icalEvent: { method: mail.calendar.method, content: mail.calendar.content, filename: 'invite.ics' } } : {}),
  }).compile();
}

/**
 * What became of one outbound message. `failed`: the SMTP server certainly did not take it (it
 * answered with a refusal, or the message never reached it). `unknown`: the message may have been
 * taken: the connection broke, or timed out, after the message was handed over and before the
 * server's answer arrived. A caller must never send an `unknown` message again on its own.
 */
export type MailDelivery = { outcome: 'accepted'; response: string; rejected: string[] } | { outcome: 'failed'; reason: string } | { outcome: 'unknown'; reason: string };

type SmtpError = Error & { responseCode?: number; response?: string };

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 500);

/*
 * Connections are kept open a short while after a message and reused (after RSET) for the next:
 * an SMTP session's set-up (greeting, EHLO, TLS, AUTH) costs more than a message on it, and
 * releases often come in bursts. Each connection carries one message at a time. A kept connection
 * is checked before it is reused: one the server closed (or half-closed) is dropped, and one idle
 * for more than PROBE_AFTER_MS must answer an RSET within SMTP_TIMEOUTS.probeMs first (a server
 * that went away without closing answers nothing, and a message sent into it would wait for its
 * answer until a timeout).
 */
type Pooled = { conn: SMTPConnection; dead: boolean; timer: NodeJS.Timeout | null; idleSince: number };
type SmtpSocket = { ref?: () => void; unref?: () => void; destroyed?: boolean; writable?: boolean; readableEnded?: boolean };
/** An idle connection must not keep the process alive (a script that sent one message exits). */
const socketOf = (p: Pooled) => (p.conn as unknown as { _socket?: SmtpSocket })._socket;
const idle = new Map<string, Pooled[]>();
const IDLE_MS = 10_000;
const MAX_IDLE = 4;
const PROBE_AFTER_MS = 1_000;

/** The connection can still carry a command: not ended by either side, its socket open both ways. */
function open(p: Pooled): boolean {
  const socket = socketOf(p);
  return !p.dead && !(p.conn as unknown as { _destroyed?: boolean })._destroyed && Boolean(socket) && !socket!.destroyed && socket!.writable !== false && socket!.readableEnded !== true;
}

function retire(p: Pooled) {
  p.dead = true;
  p.conn.close();
}

/**
 * One operation on a connection: settles with its callback, or with the connection's `error` or
 * `end`, whichever comes first. nodemailer does not always call back (a greeting that never came
 * is only emitted as `error`), and a callback that never comes must not hold a send.
 */
function settled<T>(conn: SMTPConnection, start: (done: (err?: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onError = (err: Error) => done(err);
    const onEnd = () => done(new Error('The SMTP server closed the connection'));
    const done = (err?: Error | null, value?: T) => {
      conn.off('error', onError);
      conn.off('end', onEnd);
      if (err) reject(err);
      else resolve(value as T);
    };
    conn.once('error', onError);
    conn.once('end', onEnd);
    start(done);
  });
}

/** Settles with `work`, or rejects with `what` after `ms`, having called `stop` (which closes the connection). */
function within<T>(ms: number, work: Promise<T>, stop: () => void, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(Object.assign(new Error(what), { code: 'ETIMEDOUT' }));
    }, Math.max(0, ms));
    work.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

/** RSET answered in time: the server is still there. */
const answersProbe = (p: Pooled) =>
  within(SMTP_TIMEOUTS.probeMs, settled<void>(p.conn, (done) => p.conn.reset((err) => done(err))), () => retire(p), 'no answer to RSET').then(
    () => true,
    () => false,
  );

async function takeIdle(url: string): Promise<Pooled | null> {
  const list = idle.get(url) ?? [];
  for (let p = list.pop(); p; p = list.pop()) {
    if (p.timer) clearTimeout(p.timer);
    if (!open(p)) {
      retire(p);
      continue;
    }
    socketOf(p)?.ref?.();
    if (Date.now() - p.idleSince > PROBE_AFTER_MS && !(await answersProbe(p))) {
      retire(p);
      continue;
    }
    return p;
  }
  return null;
}

function keepIdle(url: string, p: Pooled) {
  const list = idle.get(url) ?? [];
  if (!open(p) || list.length >= MAX_IDLE) return void p.conn.quit();
  p.idleSince = Date.now();
  p.timer = setTimeout(() => {
    idle.set(url, (idle.get(url) ?? []).filter((q) => q !== p));
    p.conn.quit();
  }, IDLE_MS);
  p.timer.unref();
  socketOf(p)?.unref?.();
  list.push(p);
  idle.set(url, list);
}

/** Closes every kept connection (shutdown, tests). */
export function closeMailConnections(): void {
  for (const list of idle.values()) for (const p of list) {
    if (p.timer) clearTimeout(p.timer);
    p.conn.quit();
  }
  idle.clear();
}

/** A new connection (`p`) and its opening (greeting, EHLO, AUTH), which `within` may cut short. */
function openConnection(url: string): { p: Pooled; ready: Promise<void> } {
  const options = { ...connectionTimeouts, ...parseConnectionUrl(url) } as ConstructorParameters<typeof SMTPConnection>[0] & { auth?: { user: string; pass: string } };
  const conn = new SMTPConnection(options);
  const p: Pooled = { conn, dead: false, timer: null, idleSince: Date.now() };
  // Errors also reach the pending callback; these listeners keep an 'error' event from going unhandled and retire the connection.
  conn.on('error', () => void (p.dead = true));
  conn.on('end', () => void (p.dead = true));
  const ready = (async () => {
    await settled<void>(conn, (done) => conn.connect((err?: Error | null) => done(err)));
    const auth = options.auth;
    if (auth?.user) await settled<void>(conn, (done) => conn.login(auth, (err) => done(err)));
  })();
  return { p, ready };
}

/**
 * Sends one message through the SMTP server in SMTP_URL (`smtp://user:pass@host:port`,
 * `smtps://...`, nodemailer's query options such as `?socketTimeout=10000`) and says exactly what
 * is known of it (MailDelivery). The message is handed over as a stream: the SMTP client reads it
 * only once the server has accepted the envelope and DATA, so a failure before the first read
 * means the server never had the message (`failed`; on a reused connection that had gone stale,
 * one fresh connection is tried), while a broken connection after it is `unknown`. Every wait has
 * a timeout (SMTP_TIMEOUTS: connecting, the greeting, silence on the connection) and the whole
 * delivery ends within SMTP_TIMEOUTS.totalMs: past it, the outcome is `failed` if the message was
 * not handed over yet and `unknown` if it was. Nothing is
 * recorded here: the caller records intent before and the outcome after. Without SMTP_URL nothing
 * is sent and the outcome is `failed`: a message is never reported as sent when it was not.
 */
export async function deliverMail(mail: OutboundMail, smtpUrl = process.env.SMTP_URL): Promise<MailDelivery> {
  if (!smtpUrl) return { outcome: 'failed', reason: 'No SMTP server is configured (SMTP_URL is not set): the message was not sent' };
  let raw: Buffer;
  let envelope: { from: string | false; to: string[] };
  try {
    const node = composeMail(mail);
    envelope = node.getEnvelope() as typeof envelope;
    raw = await node.build();
  } catch (e) {
    return { outcome: 'failed', reason: `The message could not be built: ${oneLine((e as Error).message)}` };
  }
  // The whole delivery, reaching the server included, ends within SMTP_TIMEOUTS.totalMs whatever
  // the server does (answers nothing, closes nothing): a send step never waits on it forever.
  const deadline = Date.now() + SMTP_TIMEOUTS.totalMs;
  const left = () => deadline - Date.now();
  const overdue = `no answer within the ${SMTP_TIMEOUTS.totalMs / 1000} s a message may take`;
  for (let attempt = 0; ; attempt++) {
    const reused = attempt === 0 ? await takeIdle(smtpUrl) : null;
    let p: Pooled;
    if (reused) p = reused;
    else {
      const opened = openConnection(smtpUrl);
      p = opened.p;
      try {
        await within(left(), opened.ready, () => retire(opened.p), overdue);
      } catch (e) {
        retire(opened.p);
        return { outcome: 'failed', reason: `The SMTP server could not be reached: ${oneLine((e as Error).message)}` };
      }
    }
    let streamed = false;
    const message = new Readable({
      read() {
        streamed = true;
        this.push(raw);
        this.push(null);
      },
    });
    const conn = p.conn;
    try {
      const sent = settled<{ response?: string; rejected?: string[] }>(conn, (done) =>
        conn.send({ from: envelope.from || mail.from, to: envelope.to }, message, (err, result) => done(err, result as never)),
      );
      const info = await within(left(), sent, () => retire(p), overdue);
      // Ready for the next message: RSET, then kept; a connection that cannot reset is closed.
      conn.reset((err) => (err ? conn.close() : keepIdle(smtpUrl, p)));
      return { outcome: 'accepted', response: oneLine(info.response ?? ''), rejected: info.rejected ?? [] };
    } catch (e) {
      retire(p);
      const err = e as SmtpError;
      // The server's own refusal (4xx/5xx) is definite, before or after the message.
      if (err.responseCode) return { outcome: 'failed', reason: `The SMTP server refused the message: ${oneLine(err.message)}` };
      if (!streamed) {
        if (reused && left() > 0) continue;
        return { outcome: 'failed', reason: `The SMTP server did not take the message: ${oneLine(err.message)}` };
      }
      logger.warn({ err, messageId: mail.messageId }, 'mail: the SMTP server’s answer to a message was lost');
      return { outcome: 'unknown', reason: `The connection to the SMTP server ended before it confirmed the message: ${oneLine(err.message)}` };
    }
  }
}
