import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { carts, tasks } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { CartEnvelope, type StagedDispatch } from '@/server/approvals/contracts';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The world of the cart API tests: a test server, people with a user key and an assistant, real
 * tasks whose queued run stages dispatches as the staging tools do, and the HTTP calls on carts.
 */
export function useCartWorld() {
  const app = useTestServer();
  const db = () => app().database.db;

  async function person(acct: AccountFixture) {
    const u = await newUser(app(), acct);
    const key = await userKey(app(), acct, u.id);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
    return { ...u, key, acct, assistantId: hired.body.assistant.id as string, assistantEmail: hired.body.assistant.email as string };
  }
  type Person = Awaited<ReturnType<typeof person>>;

  async function setup() {
    const acct = await newAccount(app());
    return { acct, a: await person(acct), b: await person(acct) };
  }

  /** A real task of the person, processed: its queued run is the one that stages. */
  async function runningTask(p: Person) {
    const created = await call(app(), '/tasks', { key: p.key, body: { title: 'Write to Bob', assistant: p.assistantId } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const taskId = created.body.task.id as string;
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Please write to Bob' } });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    return { taskId, runId: processed.body.process.executionId as string };
  }

  const taskRow = async (id: string) => (await db().select().from(tasks).where(eq(tasks.id, id)))[0];

  /** What the staging tools will do: stage as the task's owner, inside a transaction. */
  async function stage(taskId: string, runId: string, input: StagedDispatch) {
    const task = await taskRow(taskId);
    const actor = await ownerActor(db(), task, runId);
    return db().transaction((tx) => stageDispatch(tx, actor!, task, runId, input));
  }
  const submit = (cartId: string, now?: Date) => db().transaction((tx) => submitCart(tx, cartId, now));

  const emailAsUser = (over: Partial<StagedDispatch> = {}): StagedDispatch => ({
    type: 'email',
    platform: 'email',
    actionType: 'email_as_user',
    to: ['bob@example.org'],
    subject: 'Dinner',
    body: 'Hi Bob, dinner on Friday?',
    ...over,
  });
  const sms = (over: Partial<StagedDispatch> = {}): StagedDispatch => ({ type: 'message', platform: 'sms', actionType: 'messaging', to: ['+33612345678'], body: 'On my way', ...over });

  /** A cart pending approval (email as the user is manual for a new user), with its task. */
  async function pendingCart(p: Person, dispatches: StagedDispatch[] = [emailAsUser()]) {
    const { taskId, runId } = await runningTask(p);
    let cartId = '';
    for (const d of dispatches) cartId = (await stage(taskId, runId, d)).cartId;
    const outcome = await submit(cartId);
    expect(outcome).toMatchObject({ next: 'wait', status: 'pending_approval' });
    return { cartId, taskId, runId };
  }

  const read = async (p: Person, cartId: string) => {
    const res = await call(app(), `/portal/carts/${cartId}`, { key: p.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return CartEnvelope.parse(res.body).cart;
  };
  const approve = (p: Person, cartId: string, body: Record<string, unknown>) => call(app(), `/portal/carts/${cartId}/approve`, { key: p.key, body });
  const edit = (p: Person, cartId: string, index: number, body: unknown) => call(app(), `/portal/carts/${cartId}/dispatches/${index}/edit`, { method: 'PATCH', key: p.key, body });
  const update = (p: Person, cartId: string, index: number, body: unknown) => call(app(), `/portal/carts/${cartId}/dispatches/${index}`, { method: 'PATCH', key: p.key, body });
  const statusOf = async (cartId: string) => (await db().select({ status: carts.status }).from(carts).where(eq(carts.id, cartId)))[0].status;

  return { app, db, person, setup, runningTask, taskRow, stage, submit, emailAsUser, sms, pendingCart, read, approve, edit, update, statusOf };
}

export type CartWorld = ReturnType<typeof useCartWorld>;
