import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authentication } from '@/server/mail/checks/authentication';
import { automatedMarker, mayAutoReply } from '@/server/mail/checks/automated';
import { clamdScan } from '@/server/mail/checks/clamd';
import { parseDaemonUrl } from '@/server/mail/checks/daemon-socket';
import { authenticationDrop, contentDrop } from '@/server/mail/checks/drop-rules';
import { checkMessage, mailChecksConfig } from '@/server/mail/checks';
import { parseSpamdAnswer, spamdCheck } from '@/server/mail/checks/spamd';
import { EICAR, startFakeClamd } from '../helpers/clamd';
import { GTUBE, startFakeSpamd } from '../helpers/spamd';
import { compose } from './mail-sender';

/**
 * The spam and virus checkers' clients against loopback daemons that speak spamd's and clamd's
 * protocols, their configuration, the drop rules on their own, and the RFC 3834 predicate.
 */
let spamd: Awaited<ReturnType<typeof startFakeSpamd>>;
let stuckSpamd: Awaited<ReturnType<typeof startFakeSpamd>>;
let clamd: Awaited<ReturnType<typeof startFakeClamd>>;
let smallClamd: Awaited<ReturnType<typeof startFakeClamd>>;
/** A port nothing listens on (a daemon that is down). */
let closedPort: number;

beforeAll(async () => {
  [spamd, stuckSpamd, clamd, smallClamd] = await Promise.all([startFakeSpamd(), startFakeSpamd({ hang: true }), startFakeClamd(), startFakeClamd({ maxStreamBytes: 1024 })]);
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(async () => {
  await Promise.all([spamd?.close(), stuckSpamd?.close(), clamd?.close(), smallClamd?.close()]);
});

const target = (url: string) => parseDaemonUrl('TEST_URL', url, 'spamd', 783);
const letter = (text: string, attachments?: Array<{ filename: string; content: string }>) => compose({ from: 'a@sender.test', to: 'b@assistants.steward.local', subject: 'Hi', text, attachments });

describe('configuration', () => {
  it('is off without the variables, and reads host, port (the daemon’s default when left out), Unix sockets and a timeout', () => {
    expect(mailChecksConfig({})).toEqual({ spamd: null, clamd: null });
    expect(mailChecksConfig({ STEWARD_SPAMD_URL: 'spamd://127.0.0.1', STEWARD_CLAMD_URL: 'tcp://clamav.internal:3311?timeout=2000' })).toEqual({
      spamd: { host: '127.0.0.1', port: 783, timeoutMs: 5000 },
      clamd: { host: 'clamav.internal', port: 3311, timeoutMs: 2000 },
    });
    expect(mailChecksConfig({ STEWARD_CLAMD_URL: 'clamd://[::1]' }).clamd).toEqual({ host: '::1', port: 3310, timeoutMs: 5000 });
    expect(mailChecksConfig({ STEWARD_CLAMD_URL: 'unix:/run/clamav/clamd.ctl' }).clamd).toEqual({ path: '/run/clamav/clamd.ctl', timeoutMs: 5000 });
  });

  it('refuses what it cannot use, naming the variable, rather than quietly turning a check off', () => {
    expect(() => mailChecksConfig({ STEWARD_SPAMD_URL: 'http://127.0.0.1:783' })).toThrow(/STEWARD_SPAMD_URL/);
    expect(() => mailChecksConfig({ STEWARD_CLAMD_URL: '127.0.0.1:3310' })).toThrow(/STEWARD_CLAMD_URL/);
    expect(() => mailChecksConfig({ STEWARD_CLAMD_URL: 'tcp://127.0.0.1:3310?timeout=soon' })).toThrow(/STEWARD_CLAMD_URL: timeout/);
  });
});

describe('spamd client', () => {
  it('sends CHECK SPAMC/1.5 with the length, and reads the verdict, score and threshold', async () => {
    const clean = await letter('Lunch on Friday?');
    expect(await spamdCheck(target(spamd.url), clean)).toEqual({ spam: false, score: 0.1, threshold: 5 });
    expect(spamd.requests.at(-1)).toMatchObject({ command: 'CHECK', version: '1.5', headers: { 'content-length': String(clean.length) } });
    expect(await spamdCheck(target(spamd.url), await letter(`Buy now ${GTUBE}`))).toEqual({ spam: true, score: 1000, threshold: 5 });
  });

  it('fails on a daemon that is down, silent past the timeout, or answers an error', async () => {
    await expect(spamdCheck(target(`spamd://127.0.0.1:${closedPort}`), await letter('x'))).rejects.toThrow(/ECONNREFUSED/);
    const started = Date.now();
    await expect(spamdCheck(target(`${stuckSpamd.url}?timeout=300`), await letter('x'))).rejects.toThrow(/no answer .* within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(() => parseSpamdAnswer('SPAMD/1.0 76 Bad header line: (Content-Length mismatch)\r\n')).toThrow(/76 Bad header line/);
    expect(() => parseSpamdAnswer('SPAMD/1.1 0 EX_OK\r\n\r\n')).toThrow(/without a Spam header/);
    expect(parseSpamdAnswer('SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\nSpam: True ; 15.2 / 5.0\r\n\r\n')).toEqual({ spam: true, score: 15.2, threshold: 5 });
  });
});

describe('clamd client', () => {
  it('streams the message with INSTREAM and reads OK or the signature FOUND (EICAR in a base64 attachment)', async () => {
    const clean = await letter('Nothing here');
    expect(await clamdScan(target(clamd.url), clean)).toEqual({ infected: false });
    expect(clamd.scanned.at(-1)!.equals(clean)).toBe(true);
    const infected = await letter('See attached', [{ filename: 'eicar.com', content: EICAR }]);
    expect(infected.includes(EICAR)).toBe(false);
    expect(await clamdScan(target(clamd.url), infected)).toEqual({ infected: true, signature: 'Win.Test.EICAR_HDB-1' });
    // Larger than one 64 KiB chunk: the stream arrives whole.
    const large = await letter('y'.repeat(200_000));
    expect(await clamdScan(target(clamd.url), large)).toEqual({ infected: false });
    expect(clamd.scanned.at(-1)!.equals(large)).toBe(true);
  });

  it('fails on clamd’s own error (its stream limit) and on a daemon that is down', async () => {
    await expect(clamdScan(target(smallClamd.url), await letter('z'.repeat(5_000)))).rejects.toThrow(/INSTREAM size limit exceeded/);
    await expect(clamdScan(target(`tcp://127.0.0.1:${closedPort}`), await letter('x'))).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('checkMessage', () => {
  it('says `off` for a check that is not configured, and `error` with the reason (never a throw) for one that cannot answer', async () => {
    const raw = await letter('hello');
    expect(await checkMessage({ spamd: null, clamd: null }, raw, '')).toEqual({ spam: { status: 'off' }, virus: { status: 'off' } });
    expect(await checkMessage({ spamd: target(spamd.url), clamd: target(clamd.url) }, raw, 'Received: from x ([127.0.0.1]) by y; now\r\n')).toEqual({
      spam: { status: 'clean', score: 0.1, threshold: 5 },
      virus: { status: 'clean' },
    });
    expect(spamd.requests.at(-1)!.message.startsWith('Received: from x ([127.0.0.1])')).toBe(true);
    const down = await checkMessage({ spamd: target(`spamd://127.0.0.1:${closedPort}`), clamd: target(`tcp://127.0.0.1:${closedPort}?timeout=500`) }, raw, '');
    expect(down).toEqual({ spam: { status: 'error', detail: expect.stringMatching(/ECONNREFUSED/) }, virus: { status: 'error', detail: expect.stringMatching(/ECONNREFUSED/) } });
  });
});

describe('drop rules', () => {
  const auth = (over: { spf?: string; dkim?: string; dmarcRejects?: boolean }): Authentication =>
    ({
      verdict: { spf: { result: over.spf ?? 'none', domain: 'x.test' }, dkim: { result: over.dkim ?? 'none', signatures: [] }, dmarc: { result: 'none', domain: 'x.test', policy: null }, header: '' },
      sender: { verified: false, by: null, unproven: '' },
      dmarcRejects: over.dmarcRejects ?? false,
      traceHeaders: '',
    }) as Authentication;

  it('refuse only definite failures: none, softfail and temperror are kept', () => {
    expect(authenticationDrop(auth({ dmarcRejects: true }))).toMatchObject({ responseCode: 550, reason: 'dmarc_reject' });
    expect(authenticationDrop(auth({ spf: 'fail', dkim: 'fail' }))).toMatchObject({ responseCode: 550, reason: 'spf_dkim_fail', message: expect.stringMatching(/^5\.7\.1 /) });
    for (const [spf, dkim] of [['fail', 'none'], ['softfail', 'fail'], ['fail', 'temperror'], ['temperror', 'temperror'], ['none', 'none']]) {
      expect(authenticationDrop(auth({ spf, dkim }))).toBeNull();
    }
    expect(contentDrop({ spam: { status: 'error', detail: 'down' }, virus: { status: 'error', detail: 'down' } })).toBeNull();
    expect(contentDrop({ spam: { status: 'spam', score: 15.2, threshold: 5 }, virus: { status: 'infected', signature: 'Eicar' } })).toMatchObject({ responseCode: 554, reason: 'virus' });
    expect(contentDrop({ spam: { status: 'spam', score: 15.2, threshold: 5 }, virus: { status: 'off' } })).toMatchObject({ responseCode: 550, message: '5.7.1 Rejected as spam (score 15.2 of 5)' });
  });
});

describe('automated mail (RFC 3834)', () => {
  const lines = (...headers: string[]) => headers.map((line) => ({ key: line.slice(0, line.indexOf(':')).toLowerCase(), line }));

  it('marks Auto-Submitted other than `no`, and Precedence bulk, junk or list', () => {
    expect(automatedMarker(lines('Auto-Submitted: auto-replied'))).toBe('auto-replied');
    expect(automatedMarker(lines('Auto-Submitted: Auto-Generated; owner-email="x@y.test"'))).toBe('Auto-Generated; owner-email="x@y.test"');
    expect(automatedMarker(lines('Auto-Submitted: no'))).toBeNull();
    expect(automatedMarker(lines('Auto-Submitted: no', 'Precedence: bulk'))).toBe('precedence: bulk');
    expect(automatedMarker(lines('Precedence: first-class'))).toBeNull();
    expect(automatedMarker(lines('Subject: hello'))).toBeNull();
  });

  it('mayAutoReply: only to a person’s proven mail with an envelope sender, never to machinery', () => {
    const person = { autoSubmitted: null, senderVerified: true, mailFrom: 'ann@x.test', fromAddress: 'ann@x.test' };
    expect(mayAutoReply(person)).toBe(true);
    expect(mayAutoReply({ ...person, autoSubmitted: 'auto-replied' })).toBe(false);
    expect(mayAutoReply({ ...person, autoSubmitted: 'precedence: list' })).toBe(false);
    expect(mayAutoReply({ ...person, senderVerified: false })).toBe(false);
    expect(mayAutoReply({ ...person, mailFrom: null })).toBe(false);
    expect(mayAutoReply({ ...person, mailFrom: 'MAILER-DAEMON@x.test' })).toBe(false);
    expect(mayAutoReply({ ...person, mailFrom: 'owner-list@x.test' })).toBe(false);
    expect(mayAutoReply({ ...person, fromAddress: 'list-request@x.test' })).toBe(false);
  });
});
