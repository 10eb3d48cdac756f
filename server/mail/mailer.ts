import nodemailer from 'nodemailer';
import type { Db } from '@/db/client';
import { mailOutbox } from '@/db/schema';
import { logger } from '@/server/logger';

export type Mail = { accountId: string | null; to: string; subject: string; text: string };

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
    logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail: no SMTP_URL, recorded only');
  }
  await db.insert(mailOutbox).values({ ...mail, status, error });
  return { status };
}
