import { and, asc, eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cartDispatches, mailboxes, mailboxMessages, mailboxSends, taskActivities } from '@/db/schema';
import { syncMailbox } from '@/server/mailboxes/sync';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { startGraphFake, type GraphFake } from '../helpers/graph-fake';
import { waitingTasks } from '../mail/waiting-task';
import { connect, dumpDatabase } from './support/flow';

/**
 * The user's own Microsoft 365 mailbox against a loopback stand-in of the identity platform and
 * Microsoft Graph (tests/helpers/graph-fake.ts): PKCE, rotated refresh tokens, the Inbox
 * subscription and its validation handshake, notifications checked by clientState, the delta
 * poll as fallback, and mail sent as the user through a draft made from the MIME message.
 */
const h = useCartHarness();
const { app, db, person, cells, stagingRun, cartOfRun, cartReaches, readCart, approve, mails, settle, until, startTask, ended, taskRow } = h;
const { recordSentEmail } = waitingTasks(h);
let graph: GraphFake;
const ENV = ['MICROSOFT_CLIENT_ID', 'MICROSOFT_CLIENT_SECRET', 'STEWARD_MICROSOFT_LOGIN_URL', 'STEWARD_GRAPH_API_URL', 'MICROSOFT_TENANT'];

beforeAll(async () => {
  graph = await startGraphFake();
  Object.assign(process.env, graph.env);
});
afterAll(async () => {
  for (const k of ENV) delete process.env[k];
  await graph?.close();
});

let n = 0;
type Person = Awaited<ReturnType<typeof person>>;
async function withOutlook(p?: Person) {
  const who = p ?? (await person(await newAccount(app())));
  const address = `ada${++n}.${Date.now().toString(36)}@contoso.test`;
  graph.addMailbox(address);
  graph.oauth.consentAs = address;
  const { mailbox, flow } = await connect(app(), who.key, 'outlook');
  return { p: who, address, mailbox, flow };
}

const notificationsUrl = () => `${app().baseUrl}/channels/graph/notifications`;
const recordOf = async (mailboxId: string, providerId: string) =>
  (await db().select().from(mailboxMessages).where(and(eq(mailboxMessages.mailboxId, mailboxId), eq(mailboxMessages.providerMessageId, providerId))))[0];
const taken = (mailboxId: string, providerId: string) => until(async () => (await recordOf(mailboxId, providerId)) ?? null, 15_000);
const inHours = (k: number) => new Date(Date.now() + k * 3_600_000).toISOString();

describe('connecting', () => {
  it('PKCE, then an Inbox subscription whose validation token Steward echoed in plain text; the assistant runs on the mailbox', async () => {
    const { p, address, mailbox, flow } = await withOutlook();
    const q = flow.authorizeUrl.searchParams;
    expect(flow.authorizeUrl.pathname).toBe('/common/oauth2/v2.0/authorize');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('scope')?.split(' ')).toEqual(['offline_access', `${graph.base}/User.Read`, `${graph.base}/Mail.ReadWrite`, `${graph.base}/Mail.Send`]);
    expect(graph.oauth.pkceChecks.at(-1)?.ok).toBe(true);

    expect(mailbox).toMatchObject({ provider: 'outlook', address, status: 'connected', notifications: true });
    expect(graph.validations.at(-1)).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/plain/) });
    const sub = [...graph.subscriptions.values()].find((s) => s.user === address)!;
    expect(sub).toMatchObject({ resource: "me/mailFolders('Inbox')/messages", notificationUrl: notificationsUrl() });
    expect((await call(app(), `/assistants/${p.assistantId}`, { key: p.key })).body.assistant).toMatchObject({ inboxPlatform: 'outlook', inboxAuthError: false });
    // Every Graph call asks for immutable ids.
    expect(graph.calls.filter((c) => c.user === address).every((c) => c.prefer?.includes('IdType="ImmutableId"'))).toBe(true);
  });

  it('keeps the refresh token Microsoft rotates (the old one stops working at once)', async () => {
    const { mailbox } = await withOutlook();
    for (let i = 0; i < 2; i++) {
      graph.oauth.expireAccessTokens();
      expect(await syncMailbox(db(), mailbox.id)).toMatchObject({ ran: true, error: null });
    }
  });

  it('renews the subscription when less than a day is left, and makes a new one when Graph no longer has it', async () => {
    const { address, mailbox } = await withOutlook();
    const sub = [...graph.subscriptions.values()].find((s) => s.user === address)!;
    const first = sub.expirationDateTime;
    await db().update(mailboxes).set({ subscriptionExpiresAt: new Date(Date.now() + 3_600_000) }).where(eq(mailboxes.id, mailbox.id));
    await syncMailbox(db(), mailbox.id, new Date(Date.now() + 60_000));
    expect(graph.subscriptions.get(sub.id)!.expirationDateTime > first).toBe(true);

    graph.subscriptions.delete(sub.id);
    await db().update(mailboxes).set({ subscriptionExpiresAt: new Date(Date.now() + 3_600_000) }).where(eq(mailboxes.id, mailbox.id));
    await syncMailbox(db(), mailbox.id);
    const [row] = await db().select().from(mailboxes).where(eq(mailboxes.id, mailbox.id));
    expect(row.subscriptionId).not.toBe(sub.id);
    expect(graph.subscriptions.get(row.subscriptionId!)).toMatchObject({ user: address });
  });

  it('disconnecting deletes the Graph subscription', async () => {
    const { p, address } = await withOutlook();
    expect([...graph.subscriptions.values()].some((s) => s.user === address)).toBe(true);
    expect((await call(app(), '/mailbox', { method: 'DELETE', key: p.key })).body).toEqual({ ok: true, disconnected: true });
    expect([...graph.subscriptions.values()].some((s) => s.user === address)).toBe(false);
  });
});

describe('POST /api/channels/graph/notifications', () => {
  it('answers the validation handshake with the token as text/plain', async () => {
    const token = 'Validation: Testing client application reachability <&> ü';
    const res = await fetch(`${notificationsUrl()}?validationToken=${encodeURIComponent(token)}`, { method: 'POST', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(token);
  });

  it('refuses a notification whose clientState is wrong (403) and takes nothing; a real one is taken at once and fires the workflow', async () => {
    const { p, address, mailbox } = await withOutlook();
    const wf = await call(app(), '/skills', { key: p.key, body: { kind: 'workflow', name: 'lunch-mail', title: 'Lunch mail', description: 'Answer lunch invitations', triggers: [{ on: 'webhook', event: 'email.received', filter: { subject: 'lunch' } }] } });
    expect(wf.status, JSON.stringify(wf.body)).toBe(201);

    const forged = await graph.deliver(address, { from: 'Dana <dana@quiet.example>', to: address, subject: 'Lunch?', text: 'Forged notification', auth: 'pass' }, { clientState: 'guessed' });
    expect(forged.notified).toEqual([403]);
    const garbage = await fetch(notificationsUrl(), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ value: [{ subscriptionId: 'nope', clientState: 'x', resourceData: { id: forged.id } }] }) });
    expect(garbage.status).toBe(403);
    await settle(500);
    expect(await recordOf(mailbox.id, forged.id)).toBeUndefined();

    const real = await graph.deliver(address, { from: 'Dana <dana@quiet.example>', to: address, subject: 'Lunch on Friday?', text: 'Are you free?', auth: 'pass' });
    expect(real.notified).toEqual([202]);
    expect(await taken(mailbox.id, real.id)).toMatchObject({ status: 'workflow', senderVerified: true });
    const firings = (await call(app(), `/skills/${wf.body.skill.id}/firings`, { key: p.key })).body.firings;
    expect(firings).toHaveLength(1);
  });

  it('mail whose notification never came is taken by the delta poll', async () => {
    const { mailbox, address } = await withOutlook();
    const quiet = await graph.deliver(address, { from: 'eve@quiet.example', to: address, subject: 'Hello', text: 'No notification for this one', auth: 'none' }, { notify: false });
    await syncMailbox(db(), mailbox.id);
    expect(await recordOf(mailbox.id, quiet.id)).toMatchObject({ status: 'workflow', senderVerified: false });
  });

  it('answers 404 while Microsoft 365 mail is not configured', async () => {
    const saved = process.env.MICROSOFT_CLIENT_ID;
    delete process.env.MICROSOFT_CLIENT_ID;
    try {
      const res = await fetch(`${notificationsUrl()}?validationToken=x`, { method: 'POST' });
      expect(res.status).toBe(404);
      const p = await person(await newAccount(app()));
      const start = await call(app(), '/oauth/mailbox/authorize?provider=outlook', { key: p.key });
      expect(start.body).toMatchObject({ status: 400, error_code: 'outlook_not_configured' });
    } finally {
      process.env.MICROSOFT_CLIENT_ID = saved;
    }
  });
});

describe('mail as the user, and replies', () => {
  it('an approved email_as_user becomes a draft from its MIME and is sent with the user’s token; the provider’s id is kept; SMTP is not used', async () => {
    const { p, address } = await withOutlook();
    await cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await stagingRun(p, [emailCall({ asUser: true, subject: 'From my Outlook', cc: ['carol@partner.example'] })]);
    const cart = await cartOfRun(runId);
    await approve(p, cart.id, { contentHash: (await readCart(p, cart.id)).contentHash });
    await cartReaches(cart.id, ['executed']);

    const sent = graph.sent.filter((s) => s.user === address);
    expect(sent).toHaveLength(1);
    const [dispatch] = await db().select().from(cartDispatches).where(eq(cartDispatches.cartId, cart.id));
    expect(dispatch.deliveryState).toBe('provider_accepted');
    const message = await simpleParser(sent[0].raw);
    expect(message).toMatchObject({ messageId: dispatch.providerMessageId, subject: 'From my Outlook' });
    expect(message.from?.value[0].address).toBe(address);
    const [record] = await db().select().from(mailboxSends).where(eq(mailboxSends.dispatchId, dispatch.id));
    expect(record).toMatchObject({ provider: 'outlook', providerMessageId: sent[0].id });
    await settle(300);
    expect(mails()).toHaveLength(0);
  });

  it('a proven reply notified by Graph wakes the task waiting on its sender', async () => {
    const { p, address, mailbox } = await withOutlook();
    h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: ['bob@partner.example'], followUpAt: inHours(48) } }] });
    const { taskId, runId } = await startTask(p, { title: 'Quote from Bob by Outlook' });
    await ended(runId);
    const sentId = await recordSentEmail(taskId, runId, 'email_as_user');
    const reply = await graph.deliver(address, { from: 'Bob <bob@partner.example>', to: address, subject: 'Re: quote', text: 'It is 40 EUR.', inReplyTo: sentId, auth: 'pass' });
    expect(await taken(mailbox.id, reply.id)).toMatchObject({ status: 'attached', taskId });
    const contact = (await db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(asc(taskActivities.createdAt))).filter((a) => a.kind === 'contact');
    expect(contact.map((a) => a.content)).toEqual([expect.stringContaining('It is 40 EUR.')]);
    await until(async () => ((await taskRow(taskId)).status !== 'awaiting_non_user_response' ? true : null), 15_000);
  });
});

it('after all of it, no table holds a provider token in clear', async () => {
  const dump = await dumpDatabase(app());
  for (const t of graph.oauth.issued) expect(dump.includes(t), 'a token is readable in the dump').toBe(false);
  for (const s of graph.subscriptions.values()) expect(dump.includes(s.clientState), 'a clientState is readable in the dump').toBe(false);
});
