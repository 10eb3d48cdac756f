import nodemailer from 'nodemailer';
import type { Db } from '@/db/client';
import { mailOutbox } from '@/db/schema';
import { logger } from '@/server/logger';

export type Mail = {
  accountId: string | null;
  to: string;
  subject: string;
  text: string;
  /** Secrets inside the text (sign-in links): sent, but never stored in the outbox. */
  redact?: string[];
};

/**
 * Sends through the SMTP server in SMTP_URL (nodemailer). Without one, the message is only
 * recorded in the outbox and logged — it is never reported as delivered.
 */
export async function sendMail(db: Db, mail: Mail): Promise<{ status: 'sent' | 'recorded' | 'failed' }> {
  const url = process.env.SMTP_URL;
  let status: 'sent' | 'recorded' | 'failed' = 'recorded';
  let error: string | null = null;
  if (url) {
    try {
      await nodemailer.createTransport(url).sendMail({ from: process.env.MAIL_FROM ?? 'Steward <no-reply@steward.local>', to: mail.to, subject: mail.subject, text: mail.text });
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
  const { redact = [], ...record } = mail;
  const stored = redact.reduce((t, secret) => t.split(secret).join('[redacted]'), record.text);
  await db.insert(mailOutbox).values({ ...record, text: stored, status, error });
  return { status };
}
