import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { dkimSign } from 'mailauth';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';

/**
 * Another mail server, for the inbound tests: it writes a message (nodemailer's composer),
 * signs it with DKIM when told (mailauth's signer, with a key made for the test and published
 * through the loopback DNS), and delivers it over SMTP with the envelope sender it chooses.
 * A refusal comes back as the server's reply, not an exception.
 */

export type DkimKey = { domain: string; selector: string; privateKey: string; record: string };

/** A fresh RSA key for `selector._domainkey.domain`; `record` is the TXT value to publish. */
export function newDkimKey(domain: string, selector = `s${randomBytes(3).toString('hex')}`): DkimKey {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    domain,
    selector,
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    record: `v=DKIM1; k=rsa; p=${pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
  };
}

export type Letter = {
  from: string;
  to: string;
  cc?: string;
  subject: string;
  text: string;
  inReplyTo?: string;
  references?: string[];
  messageId?: string;
  headers?: Record<string, string>;
  attachments?: Array<{ filename: string; content: string }>;
};

export const newMessageId = (domain: string) => `<${randomBytes(12).toString('hex')}@${domain}>`;

/** The message as its author's server would build it. */
export async function compose(letter: Letter): Promise<Buffer> {
  return new MailComposer({ ...letter, date: new Date() }).compile().build();
}

/** `raw` with a DKIM-Signature of `key` on top, as a signing relay adds it. */
export async function signed(raw: Buffer, key: DkimKey): Promise<Buffer> {
  // mailauth's signer reads its keys from `signatureData` (its type declarations name them one level up).
  const options = { signatureData: [{ signingDomain: key.domain, selector: key.selector, privateKey: key.privateKey }] } as unknown as Parameters<typeof dkimSign>[1];
  const { signatures, errors } = await dkimSign(raw, options);
  if (errors.length) throw errors[0];
  return Buffer.concat([Buffer.from(signatures), raw]);
}

export type Delivery = { ok: true; response: string } | { ok: false; code: number; response: string };

/** Delivers `raw` to the listener with the given envelope, greeting as `helo`. */
export async function deliver(port: number, raw: Buffer, envelope: { from: string; to: string }, helo = 'mx.sender.test'): Promise<Delivery> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: helo });
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
    return { ok: true, response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    if (!e.responseCode) throw err;
    return { ok: false, code: e.responseCode, response: e.response ?? e.message };
  } finally {
    transport.close();
  }
}
