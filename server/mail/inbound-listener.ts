import { readFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { authenticate, type AuthenticateResult, type DNSResolver } from 'mailauth';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { MailAuthResult, MailAuthVerdict } from '@/db/schema';
import { logger } from '@/server/logger';

/*
 * The inbound SMTP listener (spec document 4, Inbound email; Wire details, Inbound mail): plain
 * unauthenticated SMTP as mail servers deliver it, STARTTLS offered only when a certificate is
 * configured. It knows nothing of assistants or tasks: a recipient is accepted when
 * `acceptRecipient` says so, and each message, parsed and with its SPF/DKIM/DMARC verdict, is
 * handed to `onMessage` before the 250 goes out. Every refusal is a reply code the sending
 * server understands, so the sender hears of it instead of the mail vanishing.
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
  attachments: Array<{ filename: string | null; contentType: string; size: number }>;
  auth: MailAuthVerdict;
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
  acceptRecipient: (address: string) => Promise<boolean>;
  onMessage: (mail: InboundMail) => Promise<void>;
};

export type InboundListener = { port: number; close: () => Promise<void> };

const refusal = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

/**
 * Lookups through DNS_SERVERS (comma-separated host:port) when set, as domain verification does;
 * undefined leaves mailauth on the system's resolvers. A missing record answers ENODATA/ENOTFOUND,
 * which mailauth reads as "none".
 */
export function mailDnsResolver(): DNSResolver | undefined {
  const servers = process.env.DNS_SERVERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!servers?.length) return undefined;
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
}

const RESULTS: readonly MailAuthResult[] = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'];

function result(value: string | undefined): MailAuthResult {
  if (value === 'temperr') return 'temperror';
  return RESULTS.includes(value as MailAuthResult) ? (value as MailAuthResult) : 'none';
}

/** mailauth's answer reduced to what Steward keeps: a result per check, the domains, the header. */
function verdictOf(r: AuthenticateResult): MailAuthVerdict {
  const signatures = (r.dkim?.results ?? [])
    .filter((s) => s.signingDomain)
    .map((s) => ({ domain: s.signingDomain, selector: s.selector ?? null, result: result(s.status?.result), aligned: Boolean(s.status?.aligned) }));
  const dkim: MailAuthResult = signatures.some((s) => s.result === 'pass')
    ? 'pass'
    : (signatures[0]?.result ?? result(r.dkim?.results?.[0]?.status?.result));
  return {
    spf: { result: r.spf ? result(r.spf.status?.result) : 'none', domain: r.spf ? r.spf.domain || null : null },
    dkim: { result: dkim, signatures },
    dmarc: { result: r.dmarc ? result(r.dmarc.status?.result) : 'none', domain: r.dmarc ? r.dmarc.domain || null : null, policy: r.dmarc ? r.dmarc.policy || null : null },
    header: r.headers ?? '',
  };
}

/** SPF, DKIM and DMARC of one message; a lookup that cannot be made is a stored `temperror`, never a lost message. */
async function authVerdict(raw: Buffer, session: SMTPServerSession, ip: string, mailFrom: string | null): Promise<MailAuthVerdict> {
  try {
    const r = await authenticate(raw, {
      ip,
      helo: session.hostNameAppearsAs || undefined,
      sender: mailFrom ?? '',
      resolver: mailDnsResolver(),
      disableArc: true,
      disableBimi: true,
    });
    return verdictOf(r);
  } catch (err) {
    logger.warn({ err }, 'inbound mail: SPF/DKIM/DMARC could not be checked');
    const temp = { result: 'temperror' as const };
    return { spf: { ...temp, domain: null }, dkim: { ...temp, signatures: [] }, dmarc: { ...temp, domain: null, policy: null }, header: '' };
  }
}

const addresses = (v: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(v) ? v : v ? [v] : []).flatMap((o) => o.value).flatMap((a) => (a.address ? [a.address.toLowerCase()] : []));

const messageIds = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v ? [v] : []).flatMap((s) => s.match(/<[^<>\s]+>/g) ?? []);

/** The parsed message as handlers see it; a message with no sender address is refused as malformed. */
function toInboundMail(parsed: ParsedMail, raw: Buffer, session: SMTPServerSession, ip: string, auth: MailAuthVerdict): InboundMail {
  const sender = parsed.from?.value.find((a) => a.address);
  if (!sender?.address) throw refusal(550, '5.6.0 Malformed message: it has no From header with an address');
  const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
  return {
    envelope: { mailFrom, rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()) },
    client: { ip, helo: session.hostNameAppearsAs || null, secure: session.secure },
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
    attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, size: a.size })),
    auth,
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
  const ip = clientIp(session.remoteAddress);
  const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
  const mail = toInboundMail(parsed, raw, session, ip, await authVerdict(raw, session, ip, mailFrom));
  try {
    await opts.onMessage(mail);
  } catch (err) {
    if (err instanceof InboundRefusal) throw refusal(err.responseCode, err.message);
    logger.error({ err, messageId: mail.messageId }, 'inbound mail: the message could not be stored; the sender is asked to retry');
    throw refusal(451, '4.3.0 The message could not be stored right now; please try again later');
  }
  logger.info({ messageId: mail.messageId, from: mail.from.address, to: mail.envelope.rcptTo, spf: mail.auth.spf.result, dkim: mail.auth.dkim.result, dmarc: mail.auth.dmarc.result }, 'inbound mail received');
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
 * STEWARD_INBOUND_TLS_KEY / STEWARD_INBOUND_TLS_CERT (PEM or file paths; both or neither).
 */
export function inboundListenerConfig(env: Record<string, string | undefined> = process.env): Pick<InboundListenerOptions, 'port' | 'host' | 'maxBytes' | 'tls'> | null {
  const port = env.STEWARD_INBOUND_SMTP_PORT?.trim();
  if (!port) return null;
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`STEWARD_INBOUND_SMTP_PORT must be a port number, not "${port}"`);
  const maxBytes = env.STEWARD_INBOUND_MAX_BYTES ? Number(env.STEWARD_INBOUND_MAX_BYTES) : DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new Error('STEWARD_INBOUND_MAX_BYTES must be a positive number of bytes');
  const [key, cert] = [env.STEWARD_INBOUND_TLS_KEY, env.STEWARD_INBOUND_TLS_CERT];
  if (Boolean(key) !== Boolean(cert)) throw new Error('Set both STEWARD_INBOUND_TLS_KEY and STEWARD_INBOUND_TLS_CERT, or neither');
  return { port: Number(port), host: env.STEWARD_INBOUND_SMTP_HOST || '0.0.0.0', maxBytes, tls: key && cert ? { key: pem(key), cert: pem(cert) } : null };
}
