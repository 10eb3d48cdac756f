import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { InboundChecks, MailAuthVerdict } from '@/db/schema';
import { logger } from '@/server/logger';
import { authenticateMail, type Authentication } from './checks/authentication';
import { automatedMarker } from './checks/automated';
import { authenticationDrop, contentDrop, type Drop } from './checks/drop-rules';
import { CHECKS_OFF, checkMessage, mailChecksConfig, type MailChecksConfig } from './checks';

/*
 * The inbound SMTP listener (spec document 4, Inbound email; Wire details, Inbound mail): plain
 * unauthenticated SMTP as mail servers deliver it, STARTTLS offered only when a certificate is
 * configured. It knows nothing of assistants or tasks: a recipient is accepted when
 * `acceptRecipient` says so, and each message, parsed, with its SPF/DKIM/DMARC verdict, whether
 * its From address is proven, and its spam and virus checks, is handed to `onMessage` before
 * the 250 goes out. Mail the drop rules refuse (checks/drop-rules.ts) never reaches it. Every
 * refusal is a reply code the sending server understands, so the sender hears of it instead of
 * the mail vanishing.
 */

/** The default largest message: what common providers accept. */
export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
const MAX_RECIPIENTS = 100;

export type InboundMail = {
  envelope: { mailFrom: string | null; rcptTo: string[] };
  client: { ip: string; helo: string | null; secure: boolean };
  sizeBytes: number;
  /** Header values; Message-IDs keep their angle brackets. */
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  from: { address: string; name: string | null };
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string | null;
  /** With their bytes: the layer stores them as files of the user the mail is for; the inbound row keeps only name, type and size. */
  attachments: Array<{ filename: string | null; contentType: string; size: number; content: Buffer }>;
  auth: MailAuthVerdict;
  /** The From address is proven (checks/authentication.ts); otherwise `senderUnproven` says which checks failed. */
  senderVerified: boolean;
  senderUnproven: string | null;
  checks: InboundChecks;
  /** The Auto-Submitted value (or Precedence bulk/junk/list) marking automated mail; null for a person's (checks/automated.ts). */
  autoSubmitted: string | null;
};

/** Thrown by a handler to answer with its own SMTP reply (anything else thrown is a 451: try again later). */
export class InboundRefusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

export type InboundListenerOptions = {
  port: number;
  host?: string;
  /** The name the server greets with (default: the machine's host name). */
  name?: string;
  maxBytes?: number;
  /** PEM key and certificate: STARTTLS is offered only with both. */
  tls?: { key: string; cert: string } | null;
  /** spamd and clamd (default: both off). */
  checks?: MailChecksConfig;
  acceptRecipient: (address: string) => Promise<boolean>;
  onMessage: (mail: InboundMail) => Promise<void>;
};

export type InboundListener = { port: number; close: () => Promise<void> };

const refusal = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

const addresses = (v: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(v) ? v : v ? [v] : []).flatMap((o) => o.value).flatMap((a) => (a.address ? [a.address.toLowerCase()] : []));

const messageIds = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v ? [v] : []).flatMap((s) => s.match(/<[^<>\s]+>/g) ?? []);

/** The From header's (first) address; a message without one is refused as malformed. */
function senderOf(parsed: ParsedMail): { address: string; name: string } {
  const sender = parsed.from?.value.find((a) => a.address);
  if (!sender?.address) throw refusal(550, '5.6.0 Malformed message: it has no From header with an address');
  return { address: sender.address, name: sender.name };
}

type Client = { ip: string; helo: string | null; mailFrom: string | null };

/** The parsed message as handlers see it. */
function toInboundMail(parsed: ParsedMail, raw: Buffer, session: SMTPServerSession, client: Client, auth: Authentication, checks: InboundChecks): InboundMail {
  const sender = senderOf(parsed);
  return {
    envelope: { mailFrom: client.mailFrom, rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()) },
    client: { ip: client.ip, helo: client.helo, secure: session.secure },
    sizeBytes: raw.length,
    messageId: messageIds(parsed.messageId)[0] ?? null,
    inReplyTo: messageIds(parsed.inReplyTo),
    references: messageIds(parsed.references),
    from: { address: sender.address.toLowerCase(), name: sender.name || null },
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, size: a.size, content: a.content })),
    auth: auth.verdict,
    senderVerified: auth.sender.verified,
    senderUnproven: auth.sender.unproven,
    checks,
    autoSubmitted: automatedMarker(parsed.headerLines),
  };
}

/** A message starts with its header section: the first line is a header field (name, colon). */
const startsWithHeader = (raw: Buffer) => /^[\x21-\x39\x3b-\x7e]+:/.test(raw.subarray(0, 1000).toString('latin1'));

/** `::ffff:1.2.3.4` is the IPv4 client it stands for (SPF records name IPv4 networks). */
const clientIp = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

async function receive(stream: SMTPServerDataStream, session: SMTPServerSession, opts: InboundListenerOptions): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) if (!stream.sizeExceeded) chunks.push(chunk as Buffer);
  // rejectOversized answers 552 whatever this says; nothing of the message is kept.
  if (stream.sizeExceeded) throw refusal(552, `5.3.4 Message exceeds the fixed maximum message size of ${opts.maxBytes ?? DEFAULT_MAX_BYTES} bytes`);
  const raw = Buffer.concat(chunks);
  if (!startsWithHeader(raw)) throw refusal(550, '5.6.0 Malformed message: it does not start with a header section');
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  } catch (err) {
    throw refusal(550, `5.6.0 Malformed message: ${(err as Error).message.slice(0, 200)}`);
  }
  const client: Client = {
    ip: clientIp(session.remoteAddress),
    helo: session.hostNameAppearsAs || null,
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null,
  };
  const { ip, helo } = client;
  const facts = { messageId: messageIds(parsed.messageId)[0] ?? null, from: senderOf(parsed).address.toLowerCase(), mailFrom: client.mailFrom, ip };
  const auth = await authenticateMail(raw, { ...client, fromAddress: facts.from });
  // Authentication decides first: mail it refuses is never handed to the content checkers.
  refuseIf(authenticationDrop(auth), facts);
  const received = `Received: from ${helo ?? ip} ([${ip}]) by ${opts.name ?? hostname()} with ${session.secure ? 'ESMTPS' : 'ESMTP'}; ${new Date().toUTCString()}\r\n`;
  const checks = await checkMessage(opts.checks ?? CHECKS_OFF, raw, received + auth.traceHeaders);
  refuseIf(contentDrop(checks), facts);
  const mail = toInboundMail(parsed, raw, session, client, auth, checks);
  try {
    await opts.onMessage(mail);
  } catch (err) {
    if (err instanceof InboundRefusal) throw refusal(err.responseCode, err.message);
    logger.error({ err, messageId: mail.messageId }, 'inbound mail: the message could not be stored; the sender is asked to retry');
    throw refusal(451, '4.3.0 The message could not be stored right now; please try again later');
  }
  logger.info(
    { messageId: mail.messageId, from: mail.from.address, to: mail.envelope.rcptTo, spf: mail.auth.spf.result, dkim: mail.auth.dkim.result, dmarc: mail.auth.dmarc.result, senderVerified: mail.senderVerified, spam: mail.checks.spam.status, virus: mail.checks.virus.status },
    'inbound mail received',
  );
}

/** A drop rule's refusal, with the log line that is all that remains of the message. */
function refuseIf(drop: Drop | null, facts: { messageId: string | null; from: string; mailFrom: string | null; ip: string }): void {
  if (!drop) return;
  logger.warn({ ...facts, reason: drop.reason, reply: `${drop.responseCode} ${drop.message}` }, 'inbound mail: dropped by a drop rule; nothing was stored');
  throw refusal(drop.responseCode, drop.message);
}

/** Starts listening; resolves once the port is bound. Port 0 picks a free one (tests). */
export async function startInboundListener(opts: InboundListenerOptions): Promise<InboundListener> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const server = new SMTPServer({
    name: opts.name,
    banner: 'Steward inbound mail',
    size: maxBytes,
    rejectOversized: true,
    authOptional: true,
    // Nobody signs in here: mail servers deliver to the assistants' addresses.
    disabledCommands: opts.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    logger: false,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(refusal(452, `4.5.3 Too many recipients (at most ${MAX_RECIPIENTS} per message)`));
      opts
        .acceptRecipient(address.address.toLowerCase())
        .then((ok) => callback(ok ? null : refusal(550, `5.1.1 <${address.address}>: no such mailbox here`)))
        .catch((err: unknown) => {
          logger.error({ err }, 'inbound mail: recipient check failed');
          callback(refusal(451, '4.3.0 Recipient check failed; please try again later'));
        });
    },
    onData(stream, session, callback) {
      receive(stream, session, opts).then(
        () => callback(null, 'OK: message accepted'),
        (err: Error & { responseCode?: number }) => {
          if (err.responseCode === undefined) logger.error({ err }, 'inbound mail: unexpected failure');
          callback(err.responseCode === undefined ? refusal(451, '4.3.0 Temporary failure; please try again later') : err);
        },
      );
    },
  });
  server.on('error', (err) => logger.error({ err }, 'inbound mail: SMTP server error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A PEM value, or the path of a file holding one. */
const pem = (value: string) => (value.trimStart().startsWith('-----BEGIN') ? value : readFileSync(value, 'utf8'));

/**
 * The listener's settings from the environment: STEWARD_INBOUND_SMTP_PORT (unset: off, null),
 * STEWARD_INBOUND_SMTP_HOST (default 0.0.0.0), STEWARD_INBOUND_MAX_BYTES, and
 * STEWARD_INBOUND_TLS_KEY / STEWARD_INBOUND_TLS_CERT (PEM or file paths; both or neither), and
 * the checkers STEWARD_SPAMD_URL / STEWARD_CLAMD_URL (unset: that check is off).
 */
export function inboundListenerConfig(env: Record<string, string | undefined> = process.env): Pick<InboundListenerOptions, 'port' | 'host' | 'maxBytes' | 'tls' | 'checks'> | null {
  const port = env.STEWARD_INBOUND_SMTP_PORT?.trim();
  if (!port) return null;
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`STEWARD_INBOUND_SMTP_PORT must be a port number, not "${port}"`);
  const maxBytes = env.STEWARD_INBOUND_MAX_BYTES ? Number(env.STEWARD_INBOUND_MAX_BYTES) : DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new Error('STEWARD_INBOUND_MAX_BYTES must be a positive number of bytes');
  const [key, cert] = [env.STEWARD_INBOUND_TLS_KEY, env.STEWARD_INBOUND_TLS_CERT];
  if (Boolean(key) !== Boolean(cert)) throw new Error('Set both STEWARD_INBOUND_TLS_KEY and STEWARD_INBOUND_TLS_CERT, or neither');
  return { port: Number(port), host: env.STEWARD_INBOUND_SMTP_HOST || '0.0.0.0', maxBytes, tls: key && cert ? { key: pem(key), cert: pem(cert) } : null, checks: mailChecksConfig(env) };
}
