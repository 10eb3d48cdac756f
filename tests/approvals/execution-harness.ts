import type { AddressInfo } from 'node:net';
import { and, desc, eq } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { cartDispatches, carts, type CartRow } from '@/db/schema';
import { closeMailConnections } from '@/server/mail/mailer';
import { useRunHarness } from '../agent/run-harness';
import { call, newUser, userKey, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedReply, ScriptedToolCall } from '../helpers/scripted-model';

/**
 * Carts that run: the run harness (real task-run and cart functions through the built-in
 * executor, the scripted model) plus a real SMTP server on loopback that keeps every message it
 * accepts (SMTP_URL points at it). A test can make it slow to answer after the message, as a
 * server whose reply is lost would be.
 */

export type Captured = { raw: string; envelopeTo: string[]; parsed: ParsedMail };

export async function startSmtpCapture() {
  const received: Captured[] = [];
  const state = { replyDelayMs: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Steward keeps connections open for reuse: closing the server ends them at once.
    closeTimeout: 100,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        // The message is the server's once its data has arrived, whether or not the reply reaches the client.
        void simpleParser(raw).then((parsed) => {
          received.push({ raw, envelopeTo: session.envelope.rcptTo.map((r) => r.address), parsed });
          setTimeout(() => done(), state.replyDelayMs);
        });
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    state,
    reset: () => {
      received.length = 0;
      state.replyDelayMs = 0;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let names = 0;

export function useCartHarness() {
  const h = useRunHarness();
  const { app, db } = h;
  const smtp = {} as { capture: Awaited<ReturnType<typeof startSmtpCapture>> };
  const savedSmtp = process.env.SMTP_URL;

  beforeAll(async () => {
    smtp.capture = await startSmtpCapture();
  });
  afterAll(async () => {
    closeMailConnections();
    await smtp.capture?.close();
    if (savedSmtp === undefined) delete process.env.SMTP_URL;
    else process.env.SMTP_URL = savedSmtp;
  });
  /**
   * Scripts by task title: a staging run's replies go to that task's requests only, so a run of an
   * earlier test's task (woken late by its cart's outcome on a loaded machine) never takes them.
   */
  const byTitle = new Map<string, ScriptedReply[]>();
  const titleOf = (req: ModelRequest) => {
    const m = req.messages.find((x) => x.role === 'user' && typeof x.content === 'string' && x.content.startsWith('Task: '));
    return m ? String(m.content).slice('Task: '.length).split('\n', 1)[0] : null;
  };
  beforeEach(() => {
    smtp.capture.reset();
    process.env.SMTP_URL = smtp.capture.url;
    byTitle.clear();
    // The runs a cart's outcome wakes answer in plain text unless a test scripts them.
    h.state.llm.setFallback((req) => {
      const title = titleOf(req);
      return (title !== null && byTitle.get(title)?.shift()) || { text: 'Noted.' };
    });
  });

  /** A user with a user key and an assistant of their own (a name of its own: addresses are unique per deployment). */
  async function person(acct: AccountFixture) {
    const u = await newUser(app(), acct);
    const key = await userKey(app(), acct, u.id);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Ada Cart ${++names}` } });
    expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
    return { ...u, key, assistantId: hired.body.assistant.id as string, assistantEmail: hired.body.assistant.email as string };
  }
  type Person = Awaited<ReturnType<typeof person>>;

  /** PATCH of the person's own supervision cells. */
  async function cells(p: Person, matrix: Record<string, Record<string, unknown>>) {
    const res = await call(app(), `/users/${p.id}/preferences/supervision/matrix`, { method: 'PATCH', key: p.key, body: { matrix } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  /**
   * One run that makes these tool calls, then answers in text; resolves once the run ended.
   * `approvalMode` is the task's own mode (PUT /tasks), set before the run.
   */
  async function stagingRun(p: Person, calls: ScriptedToolCall[], opts: { title?: string; approvalMode?: string; text?: string } = {}) {
    const title = opts.title ?? `Write to Bob ${++names}`;
    const taskId = await h.createTask(p, { title });
    if (opts.approvalMode) {
      const put = await call(app(), `/tasks/${taskId}`, { method: 'PUT', key: p.key, body: { approvalMode: opts.approvalMode } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    byTitle.set(title, [{ toolCalls: calls }, { text: opts.text ?? 'I have prepared it.' }]);
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Please do it' } });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    const runId = processed.body.process.executionId as string;
    const run = await h.ended(runId);
    expect(run.status, JSON.stringify(run)).toBe('finished');
    return { taskId, runId, title };
  }

  const cartOfRun = async (runId: string): Promise<CartRow> => {
    const [cart] = await db().select().from(carts).where(eq(carts.runId, runId)).orderBy(desc(carts.createdAt));
    expect(cart, `no cart for run ${runId}`).toBeTruthy();
    return cart;
  };
  const cartRow = async (cartId: string) => (await db().select().from(carts).where(eq(carts.id, cartId)))[0];
  const dispatchRow = async (cartId: string, index = 0) =>
    (await db().select().from(cartDispatches).where(and(eq(cartDispatches.cartId, cartId), eq(cartDispatches.index, index))))[0];
  /** Waits until the cart is in one of `statuses`. */
  const cartReaches = (cartId: string, statuses: string[], timeoutMs = 20_000) =>
    h.until(async () => {
      const c = await cartRow(cartId);
      return c && statuses.includes(c.status) ? c : null;
    }, timeoutMs);
  const readCart = async (p: Person, cartId: string) => {
    const res = await call(app(), `/portal/carts/${cartId}`, { key: p.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.cart;
  };
  const approve = (p: Person, cartId: string, body: Record<string, unknown>) => call(app(), `/portal/carts/${cartId}/approve`, { key: p.key, body });
  /** What the dispatches sent: Steward's own notices (the approval email, server/approvals/notify.ts, and every other notice, all Auto-Submitted) are apart. */
  const isApprovalEmail = (m: Captured) => (m.parsed.subject ?? '').startsWith('Approval needed:');
  const isNotice = (m: Captured) => m.parsed.headers.get('auto-submitted') === 'auto-generated';
  const mails = () => smtp.capture.received.filter((m) => !isApprovalEmail(m) && !isNotice(m));
  const approvalEmails = () => smtp.capture.received.filter(isApprovalEmail);
  /** Lets the engine run for a moment: what should not happen has had its chance to. */
  const settle = (ms = 1_500) => new Promise((r) => setTimeout(r, ms));

  return { ...h, smtp, person, cells, stagingRun, cartOfRun, cartRow, dispatchRow, cartReaches, readCart, approve, mails, approvalEmails, settle };
}

/** An email from the assistant, as the model calls send_email. */
export const emailCall = (args: Record<string, unknown> = {}): ScriptedToolCall => ({
  name: 'send_email',
  arguments: { to: ['bob@partner.example'], subject: 'Dinner on Friday', body: 'Hi Bob,\nDinner on Friday at 8?\nAda', ...args },
});
