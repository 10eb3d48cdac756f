import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { carts, taskActivities } from '@/db/schema';
import { registerCartSignals } from '@/server/approvals/signals';
import { call, newAccount } from '../helpers/client';
import { emailCall, useCartHarness } from './execution-harness';

/**
 * The staging tools in a real run (issue 15): send_email, send_message and create_calendar_event
 * stage into the run's one open cart and tell the model it is staged, not sent; the cart is
 * submitted when the run ends normally (and dropped when it does not); the task shows what waits.
 */
const h = useCartHarness();
const { app, person, cells, stagingRun, cartOfRun, cartRow, cartReaches, readCart, approve, mails, settle } = h;

const toolOutputs = async (taskId: string) =>
  (await h.db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt))
    .filter((a) => a.kind === 'tool')
    .map((a) => ({ name: a.toolName, output: a.toolOutput as Record<string, any> }));

describe('the staging tools', () => {
  it('stage an email, a message and an invitation into one cart, tell the model they are staged and not sent, and the run’s rules say so', async () => {
    const a = await person(await newAccount(app()));
    let mailsDuringRun = -1;
    const taskId = await h.createTask(a, { title: 'Invite Bob' });
    await call(app(), `/tasks/${taskId}`, { method: 'PUT', key: a.key, body: { approvalMode: 'manual' } });
    h.state.llm.enqueue(
      {
        toolCalls: [
          emailCall({ cc: ['carol@partner.example'], bcc: ['archive@example.org'] }),
          { name: 'send_message', arguments: { platform: 'whatsapp', to: '+33612345678', body: 'See you Friday' } },
          { name: 'create_calendar_event', arguments: { title: 'Dinner', start: '2031-05-02T20:00:00+02:00', end: '2031-05-02T22:00:00+02:00', attendees: ['bob@partner.example'] } },
        ],
      },
      () => {
        mailsDuringRun = mails().length;
        return { text: 'Everything is ready for your approval.' };
      },
    );
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Invite Bob to dinner on Friday' } });
    const runId = processed.body.process.executionId as string;
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });

    const [first] = h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes('Task: Invite Bob'));
    expect((first.tools ?? []).map((t: any) => t.function.name)).toEqual(expect.arrayContaining(['send_email', 'send_message', 'create_calendar_event']));
    expect(first.messages[0].content).toContain('do not send anything at once: they stage the action');

    const outputs = await toolOutputs(taskId);
    expect(outputs.map((o) => o.name)).toEqual(['send_email', 'send_message', 'create_calendar_event']);
    const cart = await cartOfRun(runId);
    outputs.forEach((o, i) => {
      expect(o.output).toMatchObject({ staged: true, sent: false, cartId: cart.id, dispatchIndex: i, release: 'manual' });
      expect(o.output.note).toMatch(/^Staged, not sent\./);
    });
    expect(mailsDuringRun).toBe(0);

    const shown = await readCart(a, cart.id);
    expect(shown.status).toBe('pending_approval');
    const assistantName = shown.assistantName as string;
    expect(shown.dispatches).toMatchObject([
      {
        index: 0,
        type: 'email',
        platform: 'email',
        actionType: 'email_as_assistant',
        from: a.assistantEmail,
        to: ['bob@partner.example'],
        cc: ['carol@partner.example'],
        bcc: ['archive@example.org'],
        subject: 'Dinner on Friday',
        // The team's branding is on by default: the line saying who wrote it is part of what the person approves (approvals/decorate.ts).
        body: `Hi Bob,\nDinner on Friday at 8?\nAda\n\n-- \nSent by ${assistantName}, AI assistant to ${a.email}.`,
      },
      { index: 1, type: 'message', platform: 'whatsapp', actionType: 'messaging', from: null, to: ['+33612345678'], body: `See you Friday\n— ${assistantName}, AI assistant to ${a.email}` },
      {
        index: 2,
        type: 'calendar_event',
        platform: 'calendar',
        actionType: 'calendar',
        from: a.assistantEmail,
        to: ['bob@partner.example'],
        payload: {
          title: 'Dinner',
          start: '2031-05-02T20:00:00+02:00',
          end: '2031-05-02T22:00:00+02:00',
          attendees: ['bob@partner.example'],
          location: null,
          description: `Scheduled by ${assistantName}, AI assistant to ${a.email}.`,
        },
      },
    ]);
    const task = (await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task;
    expect(task).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, pendingCart: { id: cart.id, dispatchCount: 3 } });
    await settle(500);
    expect(mails()).toHaveLength(0);
  });

  it('refuse bad input as an error to the model and stage nothing', async () => {
    const a = await person(await newAccount(app()));
    const { taskId, runId } = await stagingRun(a, [
      { name: 'create_calendar_event', arguments: { title: 'Backwards', start: '2031-05-02T22:00:00+02:00', end: '2031-05-02T20:00:00+02:00', attendees: ['bob@partner.example'] } },
      emailCall({ to: ['not an address'] }),
      { name: 'send_message', arguments: { platform: 'pigeon', to: 'Bob', body: 'Coo' } },
    ]);
    const outputs = await toolOutputs(taskId);
    expect(outputs[0].output).toMatchObject({ error: 'end: must be after start' });
    expect(outputs[1].output).toMatchObject({ error: 'Invalid input', issues: [{ field: 'to.0', problem: 'must be an email address' }] });
    expect(outputs[2].output).toMatchObject({ error: 'Invalid input', issues: [{ field: 'platform' }] });
    // Nothing was staged: the run's cart, if any was opened, never reaches the person.
    const opened = await h.db().select().from(carts).where(eq(carts.runId, runId));
    expect(opened.every((c) => c.status === 'cancelled')).toBe(true);
    expect((await call(app(), '/portal/carts', { key: a.key })).body.carts).toEqual([]);
  });
});

describe('when the run ends', () => {
  it('a run that does not end normally releases nothing it staged: the cart is cancelled, nothing is sent', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const taskId = await h.createTask(a, { title: 'Half done' });
    // The model is unconfigured after its first answer: the run ends in error after staging.
    h.state.llm.enqueue(() => {
      h.withoutModel();
      return { toolCalls: [emailCall({ subject: 'Should never leave' })] };
    });
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Go' } });
    const runId = processed.body.process.executionId as string;
    expect(await h.ended(runId)).toMatchObject({ status: 'failed', error: 'model_not_configured' });
    const cart = await cartOfRun(runId);
    expect(cart).toMatchObject({ status: 'cancelled', reason: expect.stringContaining('Not released') });
    await settle(800);
    expect(mails()).toHaveLength(0);
    expect((await h.taskRow(taskId)).status).toBe('error');
  });

  it('a cart released at once still goes out when the run completed the task; the completed task is not reopened', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_assistant: { undoDelaySec: 0 } });
    const taskId = await h.createTask(a, { title: 'Send and finish' });
    h.state.llm.enqueue({ toolCalls: [emailCall({ subject: 'Done deal' }), { name: 'complete_task', arguments: { summary: 'Wrote to Bob' } }] });
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Go' } });
    await h.ended(processed.body.process.executionId);
    const cart = await cartOfRun(processed.body.process.executionId);
    await cartReaches(cart.id, ['executed']);
    await h.until(async () => (mails().length ? mails() : null));
    expect(mails().map((m) => m.parsed.subject)).toEqual(['Done deal']);
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'completed', summary: 'Wrote to Bob' });
  });

  it('a time-boxed cart: the task waits for the user with a review headline, not ready for review', async () => {
    const a = await person(await newAccount(app()));
    const { taskId, runId } = await stagingRun(a, [emailCall()], { approvalMode: 'time-boxed' });
    const cart = await cartOfRun(runId);
    expect(cart.status).toBe('time_boxed');
    const task = (await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task;
    expect(task).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, alarm: { headline: 'Review the staged actions before they go out' } });
    expect(task.pendingCart).toMatchObject({ id: cart.id, status: 'time_boxed', timeBoxedExpiresAt: cart.timeBoxedExpiresAt!.toISOString() });
  });
});

describe('approve when the release cannot be queued', () => {
  it('answers 500 queuing_failed and leaves the cart pending; a retry once queuing works sends it', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await stagingRun(a, [emailCall({ asUser: true, subject: 'Retry me' })]);
    const cart = await cartOfRun(runId);
    const { contentHash } = await readCart(a, cart.id);
    const working = registerCartSignals(async () => {
      throw new Error('the engine is down');
    });
    try {
      const res = await approve(a, cart.id, { contentHash });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ ok: false, error_code: 'queuing_failed' });
      expect(await cartRow(cart.id)).toMatchObject({ status: 'pending_approval', resolvedAt: null });
    } finally {
      registerCartSignals(working);
    }
    await settle(500);
    expect(mails()).toHaveLength(0);
    expect((await approve(a, cart.id, { contentHash })).status).toBe(200);
    await cartReaches(cart.id, ['executed']);
    await h.until(async () => (mails().length ? mails() : null));
    expect(mails().map((m) => m.parsed.subject)).toEqual(['Retry me']);
  });
});
