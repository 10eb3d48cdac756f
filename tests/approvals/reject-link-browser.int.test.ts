import { eq } from 'drizzle-orm';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { carts, taskRuns, tasks } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { ensureNextBuild } from '../helpers/next-build';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';

/*
 * The Reject link of a deployment with two accounts and no hosted domain, in a real browser
 * against the production server (pages on): the link points at STEWARD_PUBLIC_URL, whose host
 * selects no account; the page finds the account from the token, shows the cart, and its button
 * (the page's Server Action) rejects it.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: ProductionServer;
let browser: Browser;
const mail: CapturedMail[] = [];
let closeMail: () => Promise<void>;

beforeAll(async () => {
  ensureNextBuild();
  const capture = await startMailCapture((m) => mail.push(m));
  closeMail = capture.close;
  // This process sends the approval email (notifyPendingApproval below), to the capture.
  process.env.SMTP_URL = capture.url;
  database = await createTestDatabase();
  server = await startProductionServer(database, { STEWARD_PAGES: 'on' });
  // The links this process mails are on the server's public origin, as the server's own would be.
  process.env.STEWARD_PUBLIC_URL = `http://127.0.0.1:${server.port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await server?.kill();
  await database?.drop();
  await closeMail?.();
});

it('with two accounts and no hosted domain, the Reject link opens a working page on the public origin and its button rejects the cart', { timeout: 120_000 }, async () => {
  const db = database.database.db;
  const first = await newAccount(server, 'First');
  await newAccount(server, 'Second');
  const u = await newUser(server, first);
  const key = await userKey(server, first, u.id);
  const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  const created = await call(server, '/tasks', { key, body: { title: 'Write to Bob', assistant: hired.body.assistant.id } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const processed = await call(server, `/tasks/${created.body.task.id}/process`, { key, body: { message: 'Please write to Bob' } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);

  // What the run's send_email does: email as the user is manual for a new user, so the cart waits.
  const [task] = await db.select().from(tasks).where(eq(tasks.id, created.body.task.id));
  const runId = processed.body.process.executionId as string;
  // The server's own run of this task ends on its own (and cancels whatever its cart holds if it
  // fails): stage into the run's cart only after it has ended, so the cart is this test's alone.
  await expect
    .poll(async () => (await db.select({ status: taskRuns.status }).from(taskRuns).where(eq(taskRuns.id, runId)))[0]?.status, { timeout: 60_000 })
    .not.toMatch(/^(queued|running)$/);
  const actor = await ownerActor(db, task, runId);
  const staged = { type: 'email' as const, platform: 'email', actionType: 'email_as_user' as const, to: ['bob@example.org'], subject: 'Dinner', body: 'Hi Bob, dinner on Friday?' };
  const { cartId } = await db.transaction((tx) => stageDispatch(tx, actor!, task, runId, staged));
  expect(await db.transaction((tx) => submitCart(tx, cartId))).toMatchObject({ status: 'pending_approval' });
  const notified = await notifyPendingApproval(db, cartId);
  expect(notified.sent || (!notified.sent && notified.reason === 'already_sent'), JSON.stringify(notified)).toBe(true);
  // The approval's mail, not whatever else reached the owner first: within their working hours the
  // server's own notice that the run failed (no model here) is sent at once and may come before it.
  const linkPattern = new RegExp(`http://127\\.0\\.0\\.1:${server.port}/approvals/reject\\?token=[A-Za-z0-9_%-]+`);
  await expect.poll(() => mail.filter((m) => m.to.includes(u.email) && linkPattern.test(m.text)).length, { timeout: 10_000 }).toBeGreaterThan(0);
  const text = mail.find((m) => m.to.includes(u.email) && linkPattern.test(m.text))!.text;
  const link = linkPattern.exec(text)?.[0];
  expect(link, text).toBeTruthy();

  // The public origin's other pages open no account here: the reject page is the one that must work.
  expect((await fetch(`http://127.0.0.1:${server.port}/approvals`, { redirect: 'manual' })).status).toBe(404);

  const page = await browser.newPage();
  await page.goto(link!);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Reject staged actions');
  expect(await page.getByTestId('dispatch-body').textContent()).toBe('Hi Bob, dinner on Friday?');
  await page.getByRole('button', { name: /^Reject/ }).click();
  await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 15_000 }).toContain('Rejected');
  const [row] = await db.select({ status: carts.status }).from(carts).where(eq(carts.id, cartId));
  expect(row.status).toBe('rejected');

  // Once only.
  await page.goto(link!);
  await expect.poll(() => page.getByRole('status').first().textContent()).toContain('already used');
  await page.close();
});
