import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { assistants, cartDispatches, carts } from '@/db/schema';
import { call } from '../helpers/client';
import type { useRunHarness } from '../agent/run-harness';

/**
 * Tasks that wait for an email reply, for the inbound tests: the run wrote to someone and called
 * wait_for_reply; the mail it sent is a cart dispatch with its recorded Message-ID, written here
 * as the approvals area's execution records it (staging and sending are that area's tests).
 */
type Harness = ReturnType<typeof useRunHarness>;
export type Person = Awaited<ReturnType<Harness['person']>>;

const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
export const steward = () => `<${randomBytes(12).toString('hex')}@assistants.steward.local>`;

export function waitingTasks(h: Harness) {
  const { app, db, startTask, taskRow, ended } = h;

  /** The email the task's assistant sent (from its own address), as execution records it. */
  async function recordSentEmail(taskId: string, runId: string, actionType = 'email_as_assistant'): Promise<string> {
    const task = await taskRow(taskId);
    const [cart] = await db()
      .insert(carts)
      .values({ accountId: task.accountId, taskId, runId, userId: task.userId, assistantId: task.assistantId, status: 'executed', contentHash: 'sent' })
      .returning();
    const id = steward();
    await db().insert(cartDispatches).values({
      cartId: cart.id,
      accountId: task.accountId,
      index: 0,
      type: 'email',
      platform: 'email',
      actionType,
      deliveryState: 'provider_accepted',
      providerMessageId: id,
      executedAt: new Date(),
    });
    return id;
  }

  /** A task whose run wrote to `contact` and now waits on them (wait_for_reply), and the Message-ID of that email. */
  async function taskWaitingOn(p: Person, contact: string, title: string) {
    h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: [contact], followUpAt: inHours(48) } }] });
    const { taskId, runId } = await startTask(p, { title });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response' });
    return { taskId, sentId: await recordSentEmail(taskId, runId) };
  }

  async function assistantEmail(assistantId: string): Promise<string> {
    const [row] = await db().select({ email: assistants.email }).from(assistants).where(eq(assistants.id, assistantId));
    return row.email!;
  }

  let named = 0;
  /** An assistant of the user's own with an address no other account holds (the harness's "Ada" is in every account). */
  async function ownAssistant(p: Person): Promise<{ id: string; email: string }> {
    const hired = await call(app(), `/users/${p.id}/assistants`, { key: p.key, body: { name: `Inbox ${Date.now().toString(36)} ${named++}` } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    return { id: hired.body.assistant.id, email: hired.body.assistant.email };
  }

  return { recordSentEmail, taskWaitingOn, assistantEmail, ownAssistant };
}
