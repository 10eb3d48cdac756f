import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeMailConnections, deliverMail, type OutboundMail } from '@/server/mail/mailer';
import { startSilenceableRelay, startSilentServer } from './silent-smtp';

/*
 * Every wait of an SMTP delivery ends (issue 49): a server that never greets, one that takes a
 * message and never answers it, a kept connection whose server went away without closing it, and
 * a server that closes idle connections. Each delivery ends `failed`, `unknown` or `accepted` as
 * what the server had says, never hangs.
 */
const stops: Array<() => Promise<void>> = [];
afterEach(() => closeMailConnections());
afterAll(async () => {
  for (const stop of stops) await stop();
});

let n = 0;
const mail = (): OutboundMail => ({ from: 'ada@steward.example', to: ['bob@partner.example'], cc: [], bcc: [], subject: `Message ${++n}`, text: 'Hello', messageId: `<timeouts-${n}-${Date.now()}@steward.example>` });

/** A real SMTP server keeping what it accepts; `answer: false` takes the message and never answers it. */
async function smtpServer(opts: Partial<SMTPServerOptions> & { answer?: boolean } = {}) {
  const received: string[] = [];
  const { answer = true, ...options } = opts;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    ...options,
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        if (answer) done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  stops.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `smtp://127.0.0.1:${port}`, port, received };
}

const timed = async <T>(work: Promise<T>) => {
  const t0 = Date.now();
  const value = await work;
  return { value, ms: Date.now() - t0 };
};

describe('SMTP deliveries end', () => {
  it('a server that accepts the connection and never greets: failed (the message never left), at the greeting timeout', async () => {
    const silent = await startSilentServer();
    stops.push(silent.close);
    const { value, ms } = await timed(deliverMail(mail(), `${silent.url}?greetingTimeout=500`));
    expect(value).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('could not be reached') });
    expect(ms).toBeLessThan(3_000);
  });

  it('a server that takes the message and never answers it: unknown (it may have been delivered), at the socket timeout', async () => {
    const server = await smtpServer({ answer: false });
    const { value, ms } = await timed(deliverMail(mail(), `${server.url}?socketTimeout=500`));
    expect(value).toMatchObject({ outcome: 'unknown' });
    expect(server.received).toHaveLength(1);
    expect(ms).toBeLessThan(3_000);
  });

  it('a kept connection whose server went silent without closing it is checked before reuse and replaced: the message goes out once', async () => {
    const server = await smtpServer();
    const relay = await startSilenceableRelay(server.port);
    stops.push(relay.close);
    expect(await deliverMail(mail(), relay.url)).toMatchObject({ outcome: 'accepted' });
    // Kept once the server has answered its RSET; then it goes dead silent (no FIN, no answer), and new connections are relayed.
    await new Promise((r) => setTimeout(r, 300));
    relay.silence();
    relay.speak();
    await new Promise((r) => setTimeout(r, 1_200));
    const { value, ms } = await timed(deliverMail(mail(), relay.url));
    expect(value).toMatchObject({ outcome: 'accepted' });
    expect(server.received).toHaveLength(2);
    // The check's answer is awaited for 2 s at most (SMTP_TIMEOUTS.probeMs), then a fresh connection.
    expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(ms).toBeLessThan(8_000);
  }, 30_000);

  it('a server that closes idle connections: the next message goes over a fresh connection and is accepted', async () => {
    const server = await smtpServer({ socketTimeout: 300 });
    expect(await deliverMail(mail(), server.url)).toMatchObject({ outcome: 'accepted' });
    await new Promise((r) => setTimeout(r, 1_000));
    const { value, ms } = await timed(deliverMail(mail(), server.url));
    expect(value).toMatchObject({ outcome: 'accepted' });
    expect(server.received).toHaveLength(2);
    expect(ms).toBeLessThan(2_000);
  });
});
