import { afterAll, beforeAll } from 'vitest';
import { inboundMailRouter } from '@/server/messaging/inbound-mail';
import { startInboundListener, type InboundListener } from '@/server/mail/inbound-listener';
import { useCartHarness } from '../approvals/execution-harness';
import { startMailDns } from '../mail/loopback-dns';
import { compose, deliver, newMessageId, type Letter } from '../mail/mail-sender';

/**
 * Email both ways through real SMTP: the cart harness (run harness with the scripted model and the
 * built-in executor, and an SMTP capture as SMTP_URL), the inbound listener on loopback, and a
 * loopback DNS publishing SPF for the test users' domain (example.com: every user newUser makes) so
 * mail from a user's own address and 127.0.0.1 is proven, while mail sent from elsewhere is not.
 */
export function useEmailHarness() {
  const h = useCartHarness();
  const mailState = {} as { listener: InboundListener; dns: Awaited<ReturnType<typeof startMailDns>> };
  const savedDns = process.env.DNS_SERVERS;

  beforeAll(async () => {
    mailState.dns = await startMailDns();
    mailState.dns.publish('example.com', 'v=spf1 ip4:127.0.0.1 -all');
    mailState.dns.publish('stranger.test', 'v=spf1 ip4:127.0.0.1 -all');
    process.env.DNS_SERVERS = mailState.dns.address;
    mailState.listener = await startInboundListener({ port: 0, host: '127.0.0.1', ...inboundMailRouter(h.db()) });
  });
  afterAll(async () => {
    await mailState.listener?.close();
    mailState.dns?.close();
    if (savedDns === undefined) delete process.env.DNS_SERVERS;
    else process.env.DNS_SERVERS = savedDns;
  });

  /** Mail to an assistant, from `from` (envelope and header alike unless `envelopeFrom` differs). */
  async function mail(letter: Omit<Letter, 'messageId'> & { messageId?: string; envelopeFrom?: string }) {
    const messageId = letter.messageId ?? newMessageId(letter.from.split('@')[1]!.replace(/>$/, ''));
    const raw = await compose({ ...letter, messageId });
    const from = letter.envelopeFrom ?? /<([^>]+)>/.exec(letter.from)?.[1] ?? letter.from;
    const delivered = await deliver(mailState.listener.port, raw, { from, to: letter.to });
    if (!delivered.ok) throw new Error(`the listener refused the mail: ${delivered.code} ${delivered.response}`);
    return messageId;
  }

  /** Mail the SMTP capture received for `address` (Steward's notices and replies). */
  const mailTo = (address: string) => h.smtp.capture.received.filter((m) => m.envelopeTo.includes(address));

  return { ...h, mailState, mail, mailTo };
}
