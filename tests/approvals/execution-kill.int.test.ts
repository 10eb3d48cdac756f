import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cartDispatches, carts } from '@/db/schema';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { emailCall, startSmtpCapture } from './execution-harness';

/**
 * Exactly once with a real crash (issue 31): the production server is killed with SIGKILL after
 * the SMTP server received the message and before its answer came back, so the send was made and
 * its outcome never recorded. The restarted server's cart execution takes the step over, finds the
 * send claimed without an outcome, and records it `unknown`: the message is never sent twice.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: ProductionServer | undefined;
const MODEL = 'scripted-cart-kill';
const env = () => ({ SMTP_URL: smtp.url, STEWARD_EXECUTOR_LEASE_MS: '2000', STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL });

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${server ? `\n${server.output().slice(-3000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startScriptedModel();
  smtp = await startSmtpCapture();
  // Runs the outcome wakes, and anything else: a plain answer.
  llm.setFallback({ text: 'Noted.' });
}, 120_000);
afterAll(async () => {
  await server?.kill();
  await smtp?.close();
  await llm?.close();
  await database?.drop();
});

it('SIGKILL between "sent" and "recorded": after the restart the send is unknown, and the message was sent once', { timeout: 180_000 }, async () => {
  server = await startProductionServer(database, env());
  const acct = await newAccount(server, 'Crash');
  const u = await newUser(server, acct);
  const key = await userKey(server, acct, u.id);
  const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada Crash' } });
  const cells = await call(server, `/users/${u.id}/preferences/supervision/matrix`, { method: 'PATCH', key, body: { matrix: { email_as_assistant: { undoDelaySec: 0 } } } });
  expect(cells.status, JSON.stringify(cells.body)).toBe(200);
  const created = await call(server, '/tasks', { key, body: { title: 'Write to Bob', assistant: hired.body.assistant.id } });
  const taskId = created.body.task.id as string;
  llm.enqueue({ toolCalls: [emailCall({ subject: 'Sent once, even through a crash' })] }, { text: 'I have prepared it.' });

  // The SMTP server keeps the message and holds its answer: the kill lands between the send and its record.
  smtp.state.replyDelayMs = 120_000;
  const processed = await call(server, `/tasks/${taskId}/process`, { key, body: { message: 'Please do it' } });
  expect(processed.status).toBe(200);
  await until('the message to reach the SMTP server', () => smtp.received.length > 0);
  await server.kill('SIGKILL');
  smtp.state.replyDelayMs = 0;

  const db = database.database.db;
  const [cart] = await db.select().from(carts).where(eq(carts.taskId, taskId)).orderBy(desc(carts.createdAt));
  const dispatch = async () => (await db.select().from(cartDispatches).where(and(eq(cartDispatches.cartId, cart.id), eq(cartDispatches.index, 0))))[0];
  // Killed with the send made and no outcome written: the dispatch holds only the intent (the
  // Message-ID claimed before the send), its state still not sent.
  expect(cart.status).toBe('executing');
  expect(await dispatch()).toMatchObject({ deliveryState: 'staged', providerMessageId: smtp.received[0].parsed.messageId });

  server = await startProductionServer(database, env());
  const settled = await until('the cart to settle', async () => {
    const [c] = await db.select().from(carts).where(eq(carts.id, cart.id));
    return c.status === 'executed' || c.status === 'failed' ? c : null;
  });
  expect(settled.status).toBe('executed');
  const d = await dispatch();
  expect(d).toMatchObject({ deliveryState: 'unknown', failureReason: expect.stringContaining('was not sent again') });
  // Time for a second send to show up, were there one.
  await new Promise((r) => setTimeout(r, 3_000));
  const sent = smtp.received.filter((m) => !(m.parsed.subject ?? '').startsWith('Approval needed:'));
  expect(sent.map((m) => m.parsed.subject)).toEqual(['Sent once, even through a crash']);
  expect(sent[0].parsed.messageId).toBe(d.providerMessageId);
});
