import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type CapturedMail = { to: string[]; subject: string; text: string; raw: string };

/** Undoes quoted-printable transfer encoding (soft line breaks and =XX escapes). */
export function decodeQuotedPrintable(body: string) {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parse(raw: string, to: string[]): CapturedMail {
  const sep = raw.search(/\r?\n\r?\n/);
  const head = sep >= 0 ? raw.slice(0, sep) : raw;
  const body = sep >= 0 ? raw.slice(sep).replace(/^\r?\n\r?\n/, '') : '';
  const subject = /^subject:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
  const text = /content-transfer-encoding:\s*quoted-printable/i.test(head) ? decodeQuotedPrintable(body) : body;
  return { to, subject, text, raw };
}

/**
 * A real SMTP server on loopback (smtp-server) that hands every message it receives to
 * `onMessage`: the local mail adapter for development (`npm run dev`) and the browser tests.
 */
export async function startMailCapture(onMessage: (m: CapturedMail) => void) {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c) => (raw += c));
      stream.on('end', () => {
        onMessage(parse(raw, session.envelope.rcptTo.map((r) => r.address)));
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
