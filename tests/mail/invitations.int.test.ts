import { afterAll, beforeAll, expect, it } from 'vitest';
import { setHostedDomain } from '@/server/hosted/accounts';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/** A real SMTP server on loopback that captures what Steward sends. */
const captured: CapturedMail[] = [];
let smtp: Awaited<ReturnType<typeof startMailCapture>>;

const app = useTestServer();
beforeAll(async () => {
  smtp = await startMailCapture((m) => captured.push(m));
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp.close();
});

it('adding an organization member emails an invitation to a new person and a notice to an existing one', async () => {
  const acct = await newAccount(app());
  await setHostedDomain(app().database.db, acct.accountId, `mailers-${Date.now().toString(36)}.example`);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Mailers' } })).body.organization;
  await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: 'newcomer@mail.example' } });
  const existing = await newUser(app(), acct);
  await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: existing.email } });
  expect(captured.map((c) => c.to[0])).toEqual(['newcomer@mail.example', existing.email]);
  expect(captured[0].subject).toBe('You are invited to Mailers');
  expect(captured[0].text).toMatch(/Sign in at https:\/\/mailers-[a-z0-9]+\.example\/sign-in/);
  expect(captured[1].subject).toBe('You were added to Mailers');
  const outbox = await app().database.pool.query(`SELECT "to", status FROM mail_outbox ORDER BY created_at`);
  expect(outbox.rows).toEqual([
    { to: 'newcomer@mail.example', status: 'sent' },
    { to: existing.email, status: 'sent' },
  ]);
});

it('without SMTP_URL the message is recorded, never reported as sent', async () => {
  const saved = process.env.SMTP_URL;
  delete process.env.SMTP_URL;
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Quiet' } })).body.organization;
  await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: 'quiet@mail.example' } });
  process.env.SMTP_URL = saved;
  const row = await app().database.pool.query(`SELECT status FROM mail_outbox WHERE "to" = 'quiet@mail.example'`);
  expect(row.rows).toEqual([{ status: 'recorded' }]);
});
