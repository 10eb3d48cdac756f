import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { accounts } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { closeMailConnections, deliverMail } from '@/server/mail/mailer';
import { authOptions } from '@/server/sign-in/auth-options';
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
  // deliverMail keeps its connection for the next message; the capture closes once it is gone.
  closeMailConnections();
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
  // Steward's own notices are marked as machine-written (RFC 3834), so responders leave them alone.
  for (const m of captured) expect(m.raw).toMatch(/^Auto-Submitted: auto-generated\r?$/m);
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

it('a sign-in link is marked Auto-Submitted: auto-generated (RFC 3834) and X-Auto-Response-Suppress', async () => {
  const acct = await newAccount(app());
  const host = `signin-${Date.now().toString(36)}.example`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  const user = await newUser(app(), acct);
  const [account] = await app().database.db.select().from(accounts).where(eq(accounts.id, acct.accountId));
  // The email provider's own sender, as next-auth calls it when a link is asked for.
  const options = await authOptions(app().database.db, account, { origin: `https://${host}`, secure: true });
  const email = options.providers.find((p) => p.id === 'email') as unknown as { options: { sendVerificationRequest: (p: { identifier: string; url: string }) => Promise<void> } };
  await email.options.sendVerificationRequest({ identifier: user.email, url: `https://${host}/api/auth/callback/email?token=abc&email=${encodeURIComponent(user.email)}` });
  const link = captured.find((m) => m.to.includes(user.email))!;
  expect(link.subject).toBe('Your sign-in link');
  expect(link.raw).toMatch(/^Auto-Submitted: auto-generated\r?$/m);
  expect(link.raw).toMatch(/^X-Auto-Response-Suppress: All\r?$/m);
});

it('an assistant’s own dispatched mail is a person’s message: no Auto-Submitted mark', async () => {
  const to = `partner-${Date.now().toString(36)}@mail.example`;
  const sent = await deliverMail({ from: 'ada@assistants.steward.local', to: [to], cc: [], bcc: [], subject: 'Quote', text: 'Could you send a quote?', messageId: `<q-${Date.now()}@assistants.steward.local>` }, smtp.url);
  expect(sent).toMatchObject({ outcome: 'accepted' });
  const mail = captured.find((m) => m.to.includes(to))!;
  expect(mail.raw).not.toMatch(/^Auto-Submitted:/im);
});
