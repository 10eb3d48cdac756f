import { and, eq } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { taskRuns } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { startSilenceableRelay } from './silent-smtp';

/*
 * The incident of issue 49, end to end: the SMTP server a process talked to goes away without
 * closing its connections. A cart's email then goes out on a kept connection that will never
 * answer. Its send ends within its deadline (`failed`: the message was never handed over), the cart
 * finishes, and a scheduled task due meanwhile starts on time: the stuck send held one worker,
 * never the executor's clock.
 */
const h = useCartHarness();
let relay: Awaited<ReturnType<typeof startSilenceableRelay>> | undefined;
afterAll(async () => {
  await relay?.close();
});

it('a send into a silent SMTP server ends within its deadline, the cart finishes, and a scheduled task due meanwhile starts on time', { timeout: 120_000 }, async () => {
  relay = await startSilenceableRelay(h.smtp.capture.port);
  process.env.SMTP_URL = relay.url;
  const a = await h.person(await newAccount(h.app()));
  await h.cells(a, { email_as_assistant: { undoDelaySec: 0 } });

  // A first email leaves a kept connection behind; then the server goes silent on it (no FIN, no
  // answer) and holds every new connection without a greeting.
  const first = await h.stagingRun(a, [emailCall({ subject: 'Before the silence' })]);
  await h.cartReaches((await h.cartOfRun(first.runId)).id, ['executed']);
  await h.until(async () => h.mails().length === 1);
  await new Promise((r) => setTimeout(r, 300));
  relay.silence();
  await new Promise((r) => setTimeout(r, 1_200));

  const second = await h.stagingRun(a, [emailCall({ subject: 'Into the silence' })]);
  const cart = await h.cartOfRun(second.runId);
  // The send has claimed its dispatch and waits on the silent server.
  const claimed = await h.until(async () => {
    const d = await h.dispatchRow(cart.id);
    return d?.executedAt && d.deliveryState === 'staged' ? d : null;
  }, 20_000);
  const sendStarted = claimed.executedAt!.getTime();

  const at = new Date(Date.now() + 3_000);
  const created = await call(h.app(), '/tasks', { key: a.key, body: { title: 'Due while the send hangs', assistant: a.assistantId, status: 'scheduled', scheduledFor: at.toISOString() } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const scheduled = await h.until(async () => {
    const [run] = await h.db().select().from(taskRuns).where(and(eq(taskRuns.taskId, created.body.task.id), eq(taskRuns.trigger, 'schedule')));
    return run ?? null;
  }, 20_000);
  const late = scheduled.createdAt.getTime() - at.getTime();
  expect(late).toBeGreaterThanOrEqual(-50);
  expect(late).toBeLessThan(2_000);
  // It started while the send was still waiting.
  expect((await h.dispatchRow(cart.id)).deliveryState).toBe('staged');

  const finished = await h.cartReaches(cart.id, ['failed', 'executed'], 60_000);
  expect(finished.status).toBe('failed');
  const d = await h.dispatchRow(cart.id);
  expect(d).toMatchObject({ deliveryState: 'failed', failureReason: expect.stringContaining('could not be reached') });
  // Within a send step's deadline (60 s): the kept connection's check (2 s), then the greeting's timeout (10 s).
  expect(Date.now() - sendStarted).toBeLessThan(60_000);
  // The message never left: the server holds only the first one.
  expect(h.mails().map((m) => m.parsed.subject)).toEqual(['Before the silence']);
});
