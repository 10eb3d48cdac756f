import { createServer, type AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages } from '@/db/schema';
import { inboundMailRouter } from '@/server/messaging/inbound-mail';
import { mayAutoReply } from '@/server/mail/checks/automated';
import { mailChecksConfig } from '@/server/mail/checks';
import { startInboundListener, type InboundListener } from '@/server/mail/inbound-listener';
import { EICAR, startFakeClamd } from '../helpers/clamd';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { GTUBE, startFakeSpamd } from '../helpers/spamd';
import { startMailDns } from './loopback-dns';
import { compose, deliver, newDkimKey, newMessageId, signed, type DkimKey, type Letter } from './mail-sender';

/**
 * The drop rules (spec 1, Channel behavior) and the spam and virus checks (spec 5), through the
 * real listener: spamd and clamd are loopback daemons speaking their protocols, DNS answers come
 * from a loopback server. A dropped message is refused in the SMTP dialogue and nothing is kept;
 * every kept message says what its checks found, `off` and `error` included.
 */
const app = useTestServer();
const db = () => app().database.db;

/** Authenticates its mail: SPF for the loopback client and a DKIM key. */
const GOOD = 'good.test';
/** SPF says no sender is allowed; the DKIM key published is not the one it signs with. */
const BAD = 'bad.test';
const goodKey = newDkimKey(GOOD);
const badKey = newDkimKey(BAD);
const badPublished = newDkimKey(BAD, badKey.selector);

let dns: Awaited<ReturnType<typeof startMailDns>>;
let spamd: Awaited<ReturnType<typeof startFakeSpamd>>;
let stuckSpamd: Awaited<ReturnType<typeof startFakeSpamd>>;
let clamd: Awaited<ReturnType<typeof startFakeClamd>>;
/** Checks on: spamd and clamd answer. */
let checked: InboundListener;
/** Checks configured, but spamd never answers and clamd is down. */
let broken: InboundListener;
const savedDns = process.env.DNS_SERVERS;

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

beforeAll(async () => {
  dns = await startMailDns();
  dns.publish(GOOD, 'v=spf1 ip4:127.0.0.1 -all');
  dns.publish(`${goodKey.selector}._domainkey.${GOOD}`, goodKey.record);
  dns.publish(BAD, 'v=spf1 -all');
  dns.publish(`${badKey.selector}._domainkey.${BAD}`, badPublished.record);
  process.env.DNS_SERVERS = dns.address;
  [spamd, stuckSpamd, clamd] = await Promise.all([startFakeSpamd(), startFakeSpamd({ hang: true }), startFakeClamd()]);
  const router = inboundMailRouter(db());
  checked = await startInboundListener({ port: 0, host: '127.0.0.1', checks: mailChecksConfig({ STEWARD_SPAMD_URL: spamd.url, STEWARD_CLAMD_URL: clamd.url }), ...router });
  const down = await closedPort();
  broken = await startInboundListener({
    port: 0,
    host: '127.0.0.1',
    checks: mailChecksConfig({ STEWARD_SPAMD_URL: `${stuckSpamd.url}?timeout=500`, STEWARD_CLAMD_URL: `tcp://127.0.0.1:${down}` }),
    ...router,
  });
});
afterAll(async () => {
  await checked?.close();
  await broken?.close();
  await Promise.all([spamd?.close(), stuckSpamd?.close(), clamd?.close()]);
  await dns?.close();
  if (savedDns === undefined) delete process.env.DNS_SERVERS;
  else process.env.DNS_SERVERS = savedDns;
});

let n = 0;
/** A user's own assistant (an address no other account holds) and its messages. */
async function inbox() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Checked ${Date.now().toString(36)} ${n++}` } });
  expect(hired.status, JSON.stringify(hired.body)).toBe(201);
  const id = hired.body.assistant.id as string;
  return { id, email: hired.body.assistant.email as string, rows: () => db().select().from(inboundMessages).where(eq(inboundMessages.assistantId, id)) };
}

type Send = { listener?: InboundListener; key?: DkimKey; envelopeFrom?: string };

async function send(letter: Letter, opts: Send = {}) {
  const raw = await compose(letter);
  const address = letter.from.replace(/^.*<|>$/g, '');
  return deliver((opts.listener ?? checked).port, opts.key ? await signed(raw, opts.key) : raw, { from: opts.envelopeFrom ?? address, to: letter.to });
}

const letter = (to: string, from: string, text: string, extra: Partial<Letter> = {}): Letter & { messageId: string } => ({
  from,
  to,
  subject: 'Hello',
  text,
  messageId: newMessageId(from.split('@')[1]),
  ...extra,
});

const stored = async (assistantId: string, messageId: string) =>
  (await db().select().from(inboundMessages).where(and(eq(inboundMessages.assistantId, assistantId), eq(inboundMessages.messageId, messageId))))[0];

describe('kept mail', () => {
  it('says what both checks found; spamd reads the message with this server’s Received line and authentication results', async () => {
    const box = await inbox();
    const mail = letter(box.email, `ann@${GOOD}`, 'Lunch on Friday?');
    expect(await send(mail, { key: goodKey })).toMatchObject({ ok: true });
    const row = await stored(box.id, mail.messageId);
    // The whole row on failure: a DKIM `fail` seen once in CI (not reproduced since) names its cause in the stored results.
    expect(row, JSON.stringify(row)).toMatchObject({ status: 'chat', senderVerified: true, spf: 'pass', dkim: 'pass', autoSubmitted: null });
    expect(row.checks).toEqual({ spam: { status: 'clean', score: 0.1, threshold: 5 }, virus: { status: 'clean' } });
    const seen = spamd.requests.find((r) => r.message.includes(mail.messageId))!;
    expect(seen.command).toBe('CHECK');
    expect(seen.message).toMatch(/^Received: from mx\.sender\.test \(\[127\.0\.0\.1\]\) by /);
    expect(seen.message).toMatch(/Authentication-Results: [\s\S]*spf=pass/);
    expect(mayAutoReply(row)).toBe(true);
  });

  it('when the checkers cannot answer (spamd silent past its timeout, clamd down), is kept with `error` and the reason', async () => {
    const box = await inbox();
    const mail = letter(box.email, `ann@${GOOD}`, 'Are the filters up?');
    expect(await send(mail, { key: goodKey, listener: broken })).toMatchObject({ ok: true });
    const row = await stored(box.id, mail.messageId);
    expect(row).toMatchObject({ status: 'chat', senderVerified: true });
    expect(row.checks).toEqual({
      spam: { status: 'error', detail: expect.stringMatching(/no answer from 127\.0\.0\.1:\d+ within 500 ms/) },
      virus: { status: 'error', detail: expect.stringMatching(/ECONNREFUSED/) },
    });
  });

  it('with SPF fail but no DKIM signature (or softfail and a failing signature) is kept, verdicts stored', async () => {
    const box = await inbox();
    const spfOnly = letter(box.email, `eve@${BAD}`, 'SPF fails, DKIM absent');
    expect(await send(spfOnly)).toMatchObject({ ok: true });
    expect(await stored(box.id, spfOnly.messageId)).toMatchObject({ spf: 'fail', dkim: 'none', senderVerified: false });
    const dkimOnly = letter(box.email, `eve@${BAD}`, 'DKIM fails, SPF none', { messageId: newMessageId(BAD) });
    expect(await send(dkimOnly, { key: badKey, envelopeFrom: 'eve@nospf.test' })).toMatchObject({ ok: true });
    expect(await stored(box.id, dkimOnly.messageId)).toMatchObject({ spf: 'none', dkim: 'fail', senderVerified: false });
  });

  it('marked Auto-Submitted (RFC 3834) keeps the mark, and Steward may not answer it automatically', async () => {
    const box = await inbox();
    const mail = letter(box.email, `ann@${GOOD}`, 'I am out of the office until Monday.', { subject: 'Out of office', headers: { 'Auto-Submitted': 'auto-replied' } });
    expect(await send(mail, { key: goodKey })).toMatchObject({ ok: true });
    const row = await stored(box.id, mail.messageId);
    expect(row).toMatchObject({ autoSubmitted: 'auto-replied', senderVerified: true });
    expect(mayAutoReply(row)).toBe(false);
    const bulk = letter(box.email, `news@${GOOD}`, 'Our newsletter', { headers: { Precedence: 'bulk' } });
    expect(await send(bulk, { key: goodKey })).toMatchObject({ ok: true });
    expect(await stored(box.id, bulk.messageId)).toMatchObject({ autoSubmitted: 'precedence: bulk' });
  });
});

describe('dropped mail', () => {
  it('SPF and DKIM both failing is refused 550 5.7.1 before any checker is asked; nothing is kept', async () => {
    const box = await inbox();
    const asked = spamd.requests.length + clamd.scanned.length;
    const mail = letter(box.email, `eve@${BAD}`, 'Both fail');
    const refused = await send(mail, { key: badKey });
    expect(refused).toMatchObject({ ok: false, code: 550 });
    expect(refused.response).toMatch(/^550 5\.7\.1 Rejected: both SPF and DKIM failed/);
    expect(await box.rows()).toHaveLength(0);
    expect(spamd.requests.length + clamd.scanned.length).toBe(asked);
  });

  it('spam (spamd says so) is refused 550 5.7.1; nothing is kept', async () => {
    const box = await inbox();
    const refused = await send(letter(box.email, `ann@${GOOD}`, `Cheap watches ${GTUBE}`), { key: goodKey });
    expect(refused).toMatchObject({ ok: false, code: 550 });
    expect(refused.response).toMatch(/^550 5\.7\.1 Rejected as spam \(score 1000 of 5\)/);
    expect(await box.rows()).toHaveLength(0);
  });

  it('a virus (clamd finds one in an attachment) is refused 554 5.7.1 naming it; nothing is kept', async () => {
    const box = await inbox();
    const mail = letter(box.email, `ann@${GOOD}`, 'The file you asked for', { attachments: [{ filename: 'tool.com', content: EICAR }] });
    const refused = await send(mail, { key: goodKey });
    expect(refused).toMatchObject({ ok: false, code: 554 });
    expect(refused.response).toMatch(/^554 5\.7\.1 Rejected: the message contains a virus \(Win\.Test\.EICAR_HDB-1\)/);
    expect(await box.rows()).toHaveLength(0);
  });
});
