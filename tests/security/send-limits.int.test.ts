import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notices } from '@/db/schema';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { noticeMailAllowed, noticeTextAllowed, NOTICE_LIMITED } from '@/server/notices/budget';
import { deliverNotice } from '@/server/notices/deliver';
import { consumeLinkRequest } from '@/server/sign-in/link-limit';
import type { AppError } from '@/server/http/errors';
import { newAccount, newUser, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Send limits keyed on the destination (issue 40), beyond verification codes
 * (tests/identifiers/pumping.int.test.ts): sign-in links per mailbox across the deployment, not
 * only per account; notices Steward sends by its own initiative per number and per address —
 * past the budget a text is not sent and a mail notice stays in the app.
 */

const app = useTestServer();
const inbox: CapturedMail[] = [];
let smtp: Awaited<ReturnType<typeof startMailCapture>>;
beforeAll(async () => {
  smtp = await startMailCapture((m) => inbox.push(m));
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp?.close();
});

describe('sign-in links', () => {
  it('a mailbox has a budget across accounts: 5 per account, 10 an hour in all', async () => {
    const email = uniqueEmail('pumped');
    const outcomes: string[] = [];
    for (let a = 0; a < 3; a++) {
      const { accountId } = await newAccount(app());
      for (let i = 0; i < 5; i++) {
        outcomes.push(await consumeLinkRequest(app().database.pool, accountId, email, `10.7.${a}.${i}`).then(() => 'ok', (e: AppError) => `${e.status}`));
      }
    }
    expect(outcomes).toEqual([...Array(10).fill('ok'), ...Array(5).fill('429')]);
  });
});

describe('notices', () => {
  it('texts to one number: 20 an hour, then none', async () => {
    const { accountId } = await newAccount(app());
    const to = '+14155559876';
    const allowed: boolean[] = [];
    for (let i = 0; i < 21; i++) allowed.push(await noticeTextAllowed(app().database.db, accountId, to));
    expect(allowed.filter(Boolean)).toHaveLength(20);
    expect(allowed.at(-1)).toBe(false);
  });

  it('mail to one address past its budget stays in the app: the notice is not mailed and says why', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const db = app().database.db;
    for (let i = 0; i < 60; i++) expect(await noticeMailAllowed(db, acct.accountId, u.email)).toBe(true);
    const [row] = await db
      .insert(notices)
      .values({ accountId: acct.accountId, userId: u.id, kind: 'question', dedupeKey: `limit-${Date.now()}`, channel: 'email', subject: 'One too many', text: 'x', linkPath: '/' })
      .returning();
    expect(await deliverNotice(db, row!.id)).toEqual({ sent: false, reason: 'failed' });
    expect((await db.select().from(notices).where(eq(notices.id, row!.id)))[0]).toMatchObject({ status: 'failed', error: NOTICE_LIMITED });
    await new Promise((r) => setTimeout(r, 300));
    expect(inbox.filter((m) => m.subject === 'One too many')).toEqual([]);
  });
});
