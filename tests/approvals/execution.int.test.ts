import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { carts, taskRuns } from '@/db/schema';
import { registerCartSignals } from '@/server/approvals/signals';
import { call, newAccount } from '../helpers/client';
import { emailCall, useCartHarness } from './execution-harness';

/**
 * Carts that run (issue 15): a task run stages through the real tools, the cart is released as
 * the owner's autonomy settings say, and the real cart functions send through a real SMTP server
 * on loopback. What a user sees: the cart and its snapshots over HTTP, the mail the server
 * received, the task's status, and what the model is told in the run the outcome wakes.
 */
const h = useCartHarness();
const { app, person, cells, stagingRun, cartOfRun, cartRow, dispatchRow, cartReaches, readCart, approve, mails, approvalEmails, settle } = h;

const snapshots = async (key: string, cartId: string) => {
  const res = await call(app(), `/portal/carts/${cartId}/snapshots`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.snapshots as Array<Record<string, any>>;
};
const undo = (key: string, cartId: string, index = 0) => call(app(), `/portal/carts/${cartId}/dispatches/${index}/undo`, { key, body: {} });
const runsOf = (taskId: string) => h.runsOf(taskId);
/** The model requests after the staging run's two (its tool call, then its answer): the run the outcome woke. */
const wakeRequests = (title: string) => h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes(`Task: ${title}`)).slice(2);
const cartRun = (taskId: string) =>
  h.until(async () => {
    const runs = await runsOf(taskId);
    const woke = runs.find((r) => r.trigger === 'cart');
    return woke && ['finished', 'failed', 'cancelled'].includes(woke.status) ? woke : null;
  }, 20_000);
const mailCount = (n: number) => h.until(async () => (mails().length >= n ? mails() : null), 15_000);

describe('auto: released when the run ends', () => {
  it('with undoDelaySec 0 the SMTP server receives exactly the staged email, once, under the Message-ID Steward recorded', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const { taskId, runId } = await stagingRun(a, [emailCall({ cc: ['carol@partner.example'] })]);
    const cart = await cartOfRun(runId);
    expect(await cartReaches(cart.id, ['executed'])).toMatchObject({ resolvedApprovalMode: 'auto' });

    const [mail] = await mailCount(1);
    await settle(500);
    expect(mails()).toHaveLength(1);
    expect(mail.envelopeTo.sort()).toEqual(['bob@partner.example', 'carol@partner.example']);
    expect(mail.parsed.from?.value[0].address).toBe(a.assistantEmail);
    expect(mail.parsed.subject).toBe('Dinner on Friday');
    // Exactly what the cart showed the person: the model's words and the branding line (approvals/decorate.ts).
    expect(mail.parsed.text?.trim()).toBe((await readCart(a, cart.id)).dispatches[0].body);
    expect(mail.parsed.text).toContain('Hi Bob,\nDinner on Friday at 8?\nAda');

    const [snap] = await snapshots(a.key, cart.id);
    expect(snap).toMatchObject({ dispatchIndex: 0, dispatchType: 'email', deliveryState: 'provider_accepted', canUndo: false, undoableUntil: null, failureReason: null });
    expect(snap.providerMessageId).toMatch(/^<[^<>@\s]+@[^<>@\s]+>$/);
    expect(mail.parsed.messageId).toBe(snap.providerMessageId);
    expect((await readCart(a, cart.id)).dispatches[0].deliveryState).toBe('provider_accepted');

    // Released as the run expected, all delivered: the task is not woken for it.
    await settle(500);
    expect((await runsOf(taskId)).map((r) => r.trigger)).toEqual(['process']);
  });

  it('without SMTP_URL nothing is sent and the dispatch is failed with the reason, never reported sent', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    delete process.env.SMTP_URL;
    const { runId } = await stagingRun(a, [emailCall()]);
    const cart = await cartReaches((await cartOfRun(runId)).id, ['failed', 'executed']);
    expect(cart.status).toBe('failed');
    expect(await dispatchRow(cart.id)).toMatchObject({ deliveryState: 'failed', failureReason: expect.stringContaining('SMTP_URL') });
    expect(mails()).toHaveLength(0);
  });
});

describe('manual: the person decides', () => {
  it('waits for approval (pendingCart, awaiting the user with an alarm); approve sends exactly the edited version; a stale hash sends nothing; the task wakes told the outcome', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_user: { undoDelaySec: 0 } });
    const { taskId, runId, title } = await stagingRun(a, [emailCall({ asUser: true })]);
    const cart = await cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');

    const task = (await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task;
    expect(task).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, pendingCart: { id: cart.id, status: 'pending_approval', dispatchCount: 1 } });
    expect(task.alarm).toMatchObject({ status: 'set', headline: 'Approve or cancel the staged actions' });
    await settle(500);
    expect(mails()).toHaveLength(0);
    // The owner is told by email that the cart waits for them (once).
    const [told] = await h.until(async () => (approvalEmails().length ? approvalEmails() : null));
    expect(told.envelopeTo).toEqual([a.email]);
    expect(told.parsed.text).toContain('/approvals');

    const seen = await readCart(a, cart.id);
    expect(seen.dispatches[0]).toMatchObject({ from: a.email, to: ['bob@partner.example'] });
    const edited = await call(app(), `/portal/carts/${cart.id}/dispatches/0/edit`, { method: 'PATCH', key: a.key, body: { body: 'Hi Bob,\nSaturday instead?\nAda' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);

    const stale = await approve(a, cart.id, { contentHash: seen.contentHash });
    expect(stale.body).toMatchObject({ status: 409, error_code: 'cart_content_changed' });
    await settle(500);
    expect(mails()).toHaveLength(0);
    expect((await cartRow(cart.id)).status).toBe('pending_approval');

    const ok = await approve(a, cart.id, { contentHash: edited.body.cart.contentHash, reason: 'Saturday suits me better' });
    expect(ok.body).toEqual({ ok: true, cartId: cart.id, status: 'approved' });
    await cartReaches(cart.id, ['executed']);
    const [mail] = await mailCount(1);
    expect(mail.parsed.from?.value[0].address).toBe(a.email);
    expect(mail.parsed.text?.trim()).toBe('Hi Bob,\nSaturday instead?\nAda');

    // The outcome wakes the task; the run is told which cart, what became of it, and the reason.
    expect(await cartRun(taskId)).toMatchObject({ trigger: 'cart', status: 'finished' });
    const system = wakeRequests(title)[0].messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain(cart.id);
    expect(system.content).toContain('was approved by the user and executed');
    expect(system.content).toContain('accepted by the mail server');
    expect(system.content).toContain('“Saturday suits me better”');
    await settle(300);
    expect(mails()).toHaveLength(1);
    expect(approvalEmails()).toHaveLength(1);
  });

  it('100 concurrent approvals of one cart: one succeeds and the SMTP server receives exactly one email', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await stagingRun(a, [emailCall({ asUser: true, subject: 'Only once' })]);
    const cart = await cartOfRun(runId);
    const { contentHash } = await readCart(a, cart.id);
    const results = await Promise.all(Array.from({ length: 100 }, () => approve(a, cart.id, { contentHash })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(new Set(results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.error_code}`))).toEqual(new Set(['400 cart_already_resolved']));
    await cartReaches(cart.id, ['executed']);
    await mailCount(1);
    await settle(1_000);
    expect(mails().filter((m) => m.parsed.subject === 'Only once')).toHaveLength(1);
  });

  it('cancel with a reason: nothing is sent and the woken run is told it was cancelled and why', async () => {
    const a = await person(await newAccount(app()));
    const { taskId, runId, title } = await stagingRun(a, [emailCall({ asUser: true })]);
    const cart = await cartOfRun(runId);
    const res = await call(app(), `/portal/carts/${cart.id}/cancel`, { key: a.key, body: { reason: 'Bob is away this week' } });
    expect(res.body).toEqual({ ok: true, cartId: cart.id, status: 'cancelled' });
    expect(await cartRun(taskId)).toMatchObject({ trigger: 'cart' });
    const system = wakeRequests(title)[0].messages[0].content as string;
    expect(system).toContain(`cart ${cart.id}`);
    expect(system).toContain('was cancelled by the user: nothing was sent');
    expect(system).toContain('“Bob is away this week”');
    expect(mails()).toHaveLength(0);
  });
});

describe('time-boxed', () => {
  /** The review window ends now: its end moved into the past, then the minute sweep (as its cron would). */
  async function windowEnds(cartId: string) {
    await h.db().update(carts).set({ timeBoxedExpiresAt: new Date(Date.now() - 1_000) }).where(eq(carts.id, cartId));
    const [{ inngest }, { events }] = await Promise.all([import('@/inngest/client'), import('@/inngest/events')]);
    await inngest.send(events.cartsTimeBoxesDue.create({}));
  }

  it('executes when the window ends (expiry execute), and the task is told', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const { taskId, runId, title } = await stagingRun(a, [emailCall({ subject: 'Boxed' })], { approvalMode: 'time-boxed' });
    const cart = await cartOfRun(runId);
    expect(cart).toMatchObject({ status: 'time_boxed', timeBoxedExpiry: 'execute' });
    expect((await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task.pendingCart).toMatchObject({ id: cart.id, status: 'time_boxed' });
    await windowEnds(cart.id);
    await cartReaches(cart.id, ['executed']);
    expect((await mailCount(1)).map((m) => m.parsed.subject)).toEqual(['Boxed']);
    await cartRun(taskId);
    expect(wakeRequests(title)[0].messages[0].content).toContain('was released when its review window ended and executed');
  });

  it('is cancelled when the window ends with expiry cancel: nothing is sent, the task is told', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { mode: 'time-boxed', timeBoxedWindowMin: 30, timeBoxedExpiry: 'cancel', undoDelaySec: 0 } });
    const { taskId, runId, title } = await stagingRun(a, [emailCall()]);
    const cart = await cartOfRun(runId);
    expect(cart).toMatchObject({ status: 'time_boxed', timeBoxedExpiry: 'cancel' });
    expect(cart.timeBoxedExpiresAt!.getTime() - cart.createdAt.getTime()).toBeGreaterThan(29 * 60_000);
    await windowEnds(cart.id);
    await cartReaches(cart.id, ['cancelled']);
    await cartRun(taskId);
    expect(wakeRequests(title)[0].messages[0].content).toContain('was cancelled when its review window ended');
    expect(mails()).toHaveLength(0);
  });

  it('the durable timer ends the window at its time; a cancel before it stops the timer', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const [{ inngest }, { events }] = await Promise.all([import('@/inngest/client'), import('@/inngest/events')]);
    // The window is moved to end in a moment, and its timer started for that moment (as submitting does, after a committed transaction).
    const startTimer = async (cartId: string, accountId: string, inMs: number) => {
      const expiresAt = new Date(Date.now() + inMs);
      const transactionId = await h.db().transaction(async (tx) => {
        await tx.update(carts).set({ timeBoxedExpiresAt: expiresAt }).where(eq(carts.id, cartId));
        return (await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`)).rows[0].xid;
      });
      await inngest.send(events.cartTimeBoxStarted.create({ cartId, accountId, expiresAt: expiresAt.toISOString(), transactionId }));
    };
    const timers = () => h.db().execute<{ status: string; cart: string }>(sql`SELECT status, event->'data'->>'cartId' AS cart FROM executor_runs WHERE function_id LIKE '%cart-timebox'`);

    const first = await stagingRun(a, [emailCall({ subject: 'On time' })], { approvalMode: 'time-boxed' });
    const ends = await cartOfRun(first.runId);
    await startTimer(ends.id, ends.accountId, 1_000);
    await settle(300);
    expect((await cartRow(ends.id)).status).toBe('time_boxed');
    expect(await cartReaches(ends.id, ['executed'])).toMatchObject({ status: 'executed' });
    expect((await mailCount(1)).map((m) => m.parsed.subject)).toEqual(['On time']);
    // The run the outcome woke has ended before the next task's run takes the model's next script.
    await cartRun(first.taskId);

    const stopped = await cartOfRun((await stagingRun(a, [emailCall({ subject: 'Stopped' })], { approvalMode: 'time-boxed' })).runId);
    await startTimer(stopped.id, stopped.accountId, 3_000);
    await h.until(async () => (await timers()).rows.some((r) => r.cart === stopped.id && r.status === 'sleeping'));
    expect((await call(app(), `/portal/carts/${stopped.id}/cancel`, { key: a.key, body: {} })).status).toBe(200);
    await h.until(async () => (await timers()).rows.some((r) => r.cart === stopped.id && r.status === 'cancelled'));
    await settle(3_500);
    expect((await cartRow(stopped.id)).status).toBe('cancelled');
    expect(mails().map((m) => m.parsed.subject)).toEqual(['On time']);
  });

  it('approve racing the end of the window: exactly one outcome, never both', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { mode: 'time-boxed', timeBoxedWindowMin: 30, timeBoxedExpiry: 'cancel', undoDelaySec: 0 } });
    const { expireTimeBox } = await import('@/server/approvals/timebox');
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      h.smtp.capture.received.length = 0;
      const { runId, taskId } = await stagingRun(a, [emailCall({ subject: `Race ${round}` })]);
      const cart = await cartOfRun(runId);
      const { contentHash } = await readCart(a, cart.id);
      const due = new Date(cart.timeBoxedExpiresAt!.getTime() + 1);
      const [approved, expired] = await Promise.all([approve(a, cart.id, { contentHash }), expireTimeBox(h.db(), cart.id, due)]);
      const final = await cartReaches(cart.id, ['executed', 'cancelled']);
      await settle(800);
      if (approved.status === 200) {
        expect(expired).toMatchObject({ outcome: 'none', status: expect.stringMatching(/approved|executing|executed/) });
        expect(final.status).toBe('executed');
        expect(mails().map((m) => m.parsed.subject)).toEqual([`Race ${round}`]);
      } else {
        expect(approved.body).toMatchObject({ status: 400, error_code: 'cart_already_resolved' });
        expect(expired).toEqual({ outcome: 'cancelled' });
        expect(final.status).toBe('cancelled');
        expect(mails()).toHaveLength(0);
      }
      outcomes.push(final.status);
      // Either outcome wakes the task: its run ends before the next round's run takes the model's script.
      await cartRun(taskId);
    }
    expect(outcomes.every((o) => o === 'executed' || o === 'cancelled')).toBe(true);
  });
});

describe('undo', () => {
  it('within the window: nothing is sent; the snapshot says it was undone; after its window another is 409', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 4 } });
    const { runId, taskId } = await stagingRun(a, [emailCall({ subject: 'Take it back' })]);
    const cart = await cartOfRun(runId);
    await cartReaches(cart.id, ['executing']);
    const [held] = await h.until(async () => {
      const s = await snapshots(a.key, cart.id);
      return s.length && s[0].deliveryState === 'held' ? s : null;
    });
    expect(held).toMatchObject({ canUndo: true, executedAt: null });
    expect(new Date(held.undoableUntil).getTime()).toBeGreaterThan(Date.now());

    const res = await undo(a.key, cart.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ok: true, cartId: cart.id, dispatchIndex: 0, deliveryState: 'undone' });
    expect((await undo(a.key, cart.id)).status).toBe(200);
    expect(await cartReaches(cart.id, ['cancelled', 'executed', 'failed'], 15_000)).toMatchObject({ status: 'cancelled' });
    await settle(500);
    expect(mails()).toHaveLength(0);
    expect((await snapshots(a.key, cart.id))[0]).toMatchObject({ deliveryState: 'undone', canUndo: false, executedAt: null });
    // The user undid it: the task is told (and its run ends before the next one below starts).
    await cartRun(taskId);

    // Another, left alone: sent once its window ended; undo is then too late.
    await cells(a, { email_as_assistant: { undoDelaySec: 1 } });
    const later = await cartOfRun((await stagingRun(a, [emailCall({ subject: 'Let it go' })])).runId);
    await cartReaches(later.id, ['executed'], 15_000);
    const late = await undo(a.key, later.id);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error_code: 'undo_window_closed', deliveryState: 'provider_accepted' });
    expect(mails().map((m) => m.parsed.subject)).toEqual(['Let it go']);

    // A cart not released has nothing to undo; another user's cart is 404.
    const pending = await cartOfRun((await stagingRun(a, [emailCall({ asUser: true })])).runId);
    expect((await undo(a.key, pending.id)).body).toMatchObject({ status: 409, error_code: 'not_undoable' });
    const b = await person(await newAccount(app()));
    expect((await undo(b.key, cart.id)).status).toBe(404);
  });
});

describe('undo before execution has taken the cart up', () => {
  it('an approved cart whose execution has not begun can be undone; execution then sends nothing', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_user: { undoDelaySec: 30 } });
    const cart = await cartOfRun((await stagingRun(a, [emailCall({ asUser: true, subject: 'Changed my mind' })])).runId);
    const { contentHash } = await readCart(a, cart.id);
    // The engine is away: the approval commits, its execution has not started.
    const working = registerCartSignals(async () => {});
    try {
      expect((await approve(a, cart.id, { contentHash })).status).toBe(200);
    } finally {
      registerCartSignals(working);
    }
    expect(await cartRow(cart.id)).toMatchObject({ status: 'approved', undoDelaySec: 30 });
    const res = await undo(a.key, cart.id);
    expect(res.body).toEqual({ ok: true, cartId: cart.id, dispatchIndex: 0, deliveryState: 'undone' });
    const [{ inngest }, { events }] = await Promise.all([import('@/inngest/client'), import('@/inngest/events')]);
    await inngest.send(events.cartExecuteRequested.create({ cartId: cart.id, accountId: cart.accountId, transactionId: null }));
    expect(await cartReaches(cart.id, ['cancelled', 'executed', 'failed'])).toMatchObject({ status: 'cancelled' });
    await settle(500);
    expect(mails()).toHaveLength(0);
  });
});

describe('other channels', () => {
  it('messaging with no provider configured ends failed with the reason, never sent; the task is told', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { messaging: { undoDelaySec: 0 } });
    const { taskId, runId, title } = await stagingRun(a, [{ name: 'send_message', arguments: { platform: 'sms', to: '+33612345678', body: 'On my way' } }]);
    const cart = await cartReaches((await cartOfRun(runId)).id, ['failed', 'executed']);
    expect(cart.status).toBe('failed');
    expect(await dispatchRow(cart.id)).toMatchObject({ deliveryState: 'failed', failureReason: 'no provider configured for sms' });
    expect((await snapshots(a.key, cart.id))[0]).toMatchObject({ deliveryState: 'failed', failureReason: 'no provider configured for sms' });
    await cartRun(taskId);
    const system = wakeRequests(title)[0].messages[0].content as string;
    expect(system).toContain('could not be fully executed');
    // The reason is a provider's words in general: it reaches the model inside the untrusted wrapper.
    expect(system).toMatch(/not sent: <untrusted-data source="provider">\s*no provider configured for sms\s*<\/untrusted-data>/);
  });

  it('a calendar event goes out as an iTIP invitation (text/calendar; method=REQUEST) to its attendees', async () => {
    const a = await person(await newAccount(app()));
    const start = '2031-03-04T12:30:00+01:00';
    const { runId } = await stagingRun(a, [
      { name: 'create_calendar_event', arguments: { title: 'Lunch with Bob', start, end: '2031-03-04T13:30:00+01:00', attendees: ['bob@partner.example', 'carol@partner.example'], location: 'Chez Paul' } },
    ]);
    await cartReaches((await cartOfRun(runId)).id, ['executed']);
    const [mail] = await mailCount(1);
    expect(mail.envelopeTo.sort()).toEqual(['bob@partner.example', 'carol@partner.example']);
    expect(mail.raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/i);
    const ics = mail.parsed.attachments.map((x) => x.content.toString('utf8')).find((c) => c.includes('BEGIN:VCALENDAR'));
    expect(ics).toBeDefined();
    const unfolded = ics!.replace(/\r?\n[ \t]/g, '');
    expect(unfolded).toContain('METHOD:REQUEST');
    expect(unfolded).toContain('SUMMARY:Lunch with Bob');
    expect(unfolded).toContain('LOCATION:Chez Paul');
    expect(unfolded).toMatch(/DTSTART[^:\r\n]*:20310304T113000Z/);
    expect(unfolded).toMatch(/ATTENDEE[^\r\n]*mailto:bob@partner.example/i);
    expect(unfolded).toMatch(/ATTENDEE[^\r\n]*mailto:carol@partner.example/i);
    expect(unfolded).toMatch(new RegExp(`ORGANIZER[^\\r\\n]*mailto:${a.assistantEmail.replace(/\./g, '\\.')}`, 'i'));
  });
});

describe('exactly once when a process dies mid-send', () => {
  it('the step that records the outcome fails once after the send: its retry records the send, which is never repeated', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    // The first write of "accepted" fails, as a process killed between the send and the record would leave it.
    // A sequence counts the attempts: unlike a row, nextval survives the rollback the exception causes.
    await h.db().execute(sql`CREATE SEQUENCE test_record_attempts`);
    await h.db().execute(sql`
      CREATE OR REPLACE FUNCTION test_fail_record_once() RETURNS trigger AS $$
      BEGIN
        IF NEW.delivery_state = 'provider_accepted' AND OLD.delivery_state <> 'provider_accepted' AND nextval('test_record_attempts') = 1 THEN
          RAISE EXCEPTION 'simulated crash between the send and its record';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await h.db().execute(sql`CREATE TRIGGER test_fail_record_once BEFORE UPDATE ON cart_dispatches FOR EACH ROW EXECUTE FUNCTION test_fail_record_once()`);
    try {
      const { runId } = await stagingRun(a, [emailCall({ subject: 'Sent once' })]);
      const cart = await cartReaches((await cartOfRun(runId)).id, ['executed', 'failed'], 20_000);
      expect(cart.status).toBe('executed');
      // The record was refused once, then retried: two attempts at writing "accepted".
      const attempts = await h.db().execute<{ n: string }>(sql`SELECT last_value::text AS n FROM test_record_attempts`);
      expect(attempts.rows[0].n).toBe('2');
      await settle(500);
      expect(mails().map((m) => m.parsed.subject)).toEqual(['Sent once']);
      const d = await dispatchRow(cart.id);
      expect(d).toMatchObject({ deliveryState: 'provider_accepted' });
      expect(mails()[0].parsed.messageId).toBe(d.providerMessageId);
    } finally {
      await h.db().execute(sql`DROP TRIGGER IF EXISTS test_fail_record_once ON cart_dispatches`);
    }
  });

  it('a send whose SMTP answer is lost after the message was handed over is unknown, and never sent again', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    h.smtp.capture.state.replyDelayMs = 2_000;
    process.env.SMTP_URL = `${h.smtp.capture.url}?socketTimeout=400`;
    const { taskId, runId, title } = await stagingRun(a, [emailCall({ subject: 'Lost answer' })]);
    const cart = await cartReaches((await cartOfRun(runId)).id, ['executed', 'failed'], 20_000);
    expect(cart.status).toBe('executed');
    const d = await dispatchRow(cart.id);
    expect(d).toMatchObject({ deliveryState: 'unknown', failureReason: expect.stringContaining('before it confirmed') });
    await settle(2_500);
    expect(mails().map((m) => m.parsed.subject)).toEqual(['Lost answer']);
    expect(mails()[0].parsed.messageId).toBe(d.providerMessageId);
    // Not what the run expected: the task is told the delivery is unknown.
    await cartRun(taskId);
    expect(wakeRequests(title)[0].messages[0].content).toContain('delivery unknown');
  });

  it('a send step run a second time (its first run died before its result was stored) sends nothing and says unknown', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const { runId } = await stagingRun(a, [emailCall({ subject: 'Replayed' })]);
    const cart = await cartReaches((await cartOfRun(runId)).id, ['executed']);
    await mailCount(1);
    const d = await dispatchRow(cart.id);
    const { sendDispatch, jobKey } = await import('@/server/approvals/delivery');
    // The same job again, with its claim rolled back to "attempted, no outcome", as a crash would leave it.
    await h.db().execute(sql`UPDATE cart_dispatches SET delivery_state = 'staged' WHERE id = ${d.id}`);
    const again = await sendDispatch(h.db(), { dispatchId: d.id, cartId: cart.id, index: 0, versionId: d.currentVersionId!, type: 'email', key: jobKey(cart.id, d.currentVersionId!, 0) });
    expect(again).toMatchObject({ outcome: 'unknown' });
    await settle(500);
    expect(mails()).toHaveLength(1);
    expect((await h.db().select().from(taskRuns).where(eq(taskRuns.id, runId)))[0].status).toBe('finished');
  });
});
