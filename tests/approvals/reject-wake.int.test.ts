import { afterAll, beforeAll, expect, it } from 'vitest';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { setHostedDomain } from '@/server/hosted/accounts';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount } from '../helpers/client';

/*
 * The reject link through a real run (the production task-run function in the built-in
 * executor, the scripted model calling send_email): the run stages an email that the user's
 * settings hold for approval, the approval email goes out, and rejecting from its link wakes
 * the task, whose next run is told the cart was rejected and that nothing was sent.
 */

const h = useRunHarness();
const mail: CapturedMail[] = [];
let closeMail: () => Promise<void>;
const savedSmtp = process.env.SMTP_URL;
beforeAll(async () => {
  const capture = await startMailCapture((m) => mail.push(m));
  closeMail = capture.close;
  process.env.SMTP_URL = capture.url;
});
afterAll(async () => {
  if (savedSmtp === undefined) delete process.env.SMTP_URL;
  else process.env.SMTP_URL = savedSmtp;
  await closeMail?.();
});

it('rejecting from the approval email wakes the waiting task; its next run is told, and nothing is sent', async () => {
  const db = h.db();
  const acct = await newAccount(h.app());
  const host = `reject-wake-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(db, acct.accountId, host);
  const p = await h.person(acct);
  const manual = await call(h.app(), `/users/${p.id}/preferences/supervision/matrix`, { key: p.key, method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'manual' } } } });
  expect(manual.status, JSON.stringify(manual.body)).toBe(200);

  h.state.llm.enqueue({ toolCalls: [{ name: 'send_email', arguments: { to: ['bob@example.org'], subject: 'Dinner', body: 'Hi Bob, dinner on Friday?' } }] }, { text: 'I drafted the email; it waits for your approval.' });
  h.state.llm.setFallback({ text: 'Understood: I will not send it.' });
  const { taskId, runId } = await h.startTask(p, { title: 'Write to Bob' }, 'Ask Bob to dinner');
  await h.ended(runId);
  const waiting = (await call(h.app(), `/tasks/${taskId}`, { key: p.key })).body.task;
  expect(waiting.pendingCart, JSON.stringify(waiting)).toMatchObject({ status: 'pending_approval' });
  const cartId = waiting.pendingCart.id as string;
  const statusBefore = waiting.status;

  // The run's end may already have mailed it; either way there is exactly one approval email.
  const notified = await notifyPendingApproval(db, cartId);
  expect(notified.sent || notified.reason === 'already_sent' || notified.reason === 'in_progress', JSON.stringify(notified)).toBe(true);
  await expect.poll(() => mail.filter((m) => m.to.includes(p.email) && m.subject === 'Approval needed: Write to Bob').length).toBe(1);
  const token = decodeURIComponent(/\/approvals\/reject\?token=([A-Za-z0-9_%-]+)/.exec(mail.find((m) => m.to.includes(p.email))!.text)![1]);

  const anon = appRouter.createCaller(await portalContext(db, new Headers({ host })));
  expect(await anon.approvals.reject({ token })).toEqual({ ok: true, cartId, status: 'rejected' });

  // Woken with a run triggered by the cart, which is told what happened.
  const runs = await h.until(async () => {
    const all = await h.runsOf(taskId);
    return all.length >= 2 ? all : null;
  }, 30_000);
  expect(statusBefore).not.toBe('pending');
  expect(runs[1].trigger).toBe('cart');
  await h.ended(runs[1].id);
  const told = JSON.stringify(h.state.llm.requests.at(-1)!.messages);
  expect(told).toContain(cartId);
  expect(told).toContain('rejected');
  expect((await call(h.app(), `/portal/carts/${cartId}`, { key: p.key })).body.cart.status).toBe('rejected');
  expect(mail.filter((m) => m.to.includes('bob@example.org'))).toEqual([]);
});
