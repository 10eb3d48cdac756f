import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

/** Undoes quoted-printable transfer encoding (soft line breaks and =XX escapes). */
export function decodeQuotedPrintable(body: string) {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** A real SMTP server on loopback: each message Steward sends is written to `dir` as JSON. */
export async function startMailCapture(dir: string) {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c) => (raw += c));
      stream.on('end', () => {
        const sep = raw.search(/\r?\n\r?\n/);
        const body = sep >= 0 ? raw.slice(sep).replace(/^\r?\n\r?\n/, '') : raw;
        const qp = /content-transfer-encoding:\s*quoted-printable/i.test(raw);
        const to = session.envelope.rcptTo.map((r) => r.address);
        writeFileSync(path.join(dir, `${Date.now()}-${++n}.json`), JSON.stringify({ to, raw, text: qp ? decodeQuotedPrintable(body) : body }));
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
