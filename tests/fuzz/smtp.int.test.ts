import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inboundMailRouter } from '@/server/messaging/inbound-mail';
import { startInboundListener, type InboundListener } from '@/server/mail/inbound-listener';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startMailDns } from '../mail/loopback-dns';
import { closeDialogues, smtpDialogue } from '../mail/smtp-dialogue';
import { SEED } from './harness';

/**
 * The inbound SMTP listener fuzzed: sessions of hostile commands, addresses and messages (malformed
 * MIME, NUL and 8-bit bytes, huge headers, bare LFs, unknown verbs), to a real assistant's address
 * and to nobody's. Every reply is a well-formed SMTP reply, and never a 4xx "try again later": with
 * the database up, a temporary failure means Steward choked on the input. The listener answers a
 * clean message afterwards.
 */
const app = useTestServer();
let listener: InboundListener;
let dns: Awaited<ReturnType<typeof startMailDns>>;
let assistantEmail = '';
const savedDns = process.env.DNS_SERVERS;

beforeAll(async () => {
  dns = await startMailDns();
  process.env.DNS_SERVERS = dns.address;
  listener = await startInboundListener({ port: 0, host: '127.0.0.1', ...inboundMailRouter(app().database.db) });
  const acct = await newAccount(app(), 'SMTP fuzz');
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  assistantEmail = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Inbox' } })).body.assistant.email;
});
afterAll(async () => {
  closeDialogues();
  await listener?.close();
  await dns?.close();
  if (savedDns === undefined) delete process.env.DNS_SERVERS;
  else process.env.DNS_SERVERS = savedDns;
});

const address = fc.oneof(
  fc.constantFrom('<>', '<bob@partner.example>', '<"quoted local"@partner.example>', '<a@b>', '<@route:x@y.example>', '<x@[127.0.0.1]>', `<${'a'.repeat(300)}@x.example>`, '<\u00e9@x.example>', 'no-brackets@x.example', '<a\u0000b@x.example>'),
  fc.emailAddress().map((a) => `<${a}>`),
);
const header = fc.oneof(
  fc.constantFrom('From: Bob <bob@partner.example>', 'From: a@x, b@y', 'From:', 'Subject: =?UTF-8?B?w6k=?=', 'Subject: =?bogus?Q?x?=', `Subject: ${'x'.repeat(20_000)}`, 'Content-Type: multipart/mixed; boundary=', 'Content-Type: multipart/mixed; boundary="b"', 'In-Reply-To: <not-ours@x>', 'References: <<<>>>', 'Content-Transfer-Encoding: base64', 'Auto-Submitted: auto-replied', 'DKIM-Signature: v=1; a=rsa-sha256; d=x; s=y; b=AAAA; bh=BBBB; h=from'),
  fc.string({ maxLength: 60 }).map((s) => `X-Fuzz: ${s.replace(/[\r\n]/g, ' ')}`),
);
const bodyText = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--', '--b\r\n\r\n', '\u0000\u0001\u0002', 'é'.repeat(500), '.\r\n..\r\n.', '=ZZ=\r\n==', 'x\ny\nz'));
const message = fc.tuple(fc.array(header, { maxLength: 8 }), bodyText).map(([h, b]) => `${h.join('\r\n')}\r\n\r\n${b}`);
const command = fc.oneof(
  { weight: 4, arbitrary: fc.record({ verb: fc.constant('MAIL FROM:' as const), arg: address }) },
  { weight: 4, arbitrary: fc.record({ verb: fc.constant('RCPT TO:' as const), arg: fc.oneof(fc.constant(`<ASSISTANT>`), address) }) },
  { weight: 3, arbitrary: fc.record({ verb: fc.constant('DATA' as const), arg: message }) },
  { weight: 1, arbitrary: fc.record({ verb: fc.constantFrom('RSET', 'NOOP', 'HELP', 'VRFY x', 'EXPN x', 'ETRN', 'BDAT 10', 'STARTTLS', 'AUTH PLAIN AAAA', 'XYZZY', 'EHLO', 'HELO \u00e9', `EHLO ${'h'.repeat(600)}`), arg: fc.constant('') }) },
);
const REPLY = /^\d{3}[ -]/;

it('every reply to a hostile session is a well-formed SMTP reply, and none is a temporary failure', async () => {
  const problems: string[] = [];
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 8 }), async (commands) => {
      const smtp = await smtpDialogue(listener.port);
      const replies: string[] = [];
      try {
        replies.push(await smtp.say('EHLO fuzz.partner.example'));
        for (const c of commands) {
          if (c.verb === 'DATA') {
            const go = await smtp.say('DATA');
            replies.push(go);
            if (go.startsWith('354')) replies.push(await smtp.data(c.arg));
          } else {
            const line = c.verb.endsWith(':') ? `${c.verb}${c.arg.replace('ASSISTANT', assistantEmail)}` : c.verb;
            replies.push(await smtp.say(line.replace(/[\r\n]/g, ' ')));
          }
        }
      } finally {
        smtp.close();
      }
      for (const r of replies) {
        if (!r.split('\r\n').every((l) => REPLY.test(l))) problems.push(`malformed reply: ${JSON.stringify(r).slice(0, 200)}`);
        if (/^4\d\d /m.test(r) && !/^421 .*(timeout|too many)/im.test(r)) problems.push(`temporary failure ${r.slice(0, 200)} after ${JSON.stringify(commands).slice(0, 400)}`);
      }
    }),
    { seed: SEED, numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
  );
  expect(problems).toEqual([]);
  // Still answering: a clean message to the assistant is taken.
  const smtp = await smtpDialogue(listener.port);
  await smtp.say('EHLO partner.example');
  expect(await smtp.say('MAIL FROM:<bob@partner.example>')).toMatch(/^250/);
  expect(await smtp.say(`RCPT TO:<${assistantEmail}>`)).toMatch(/^250/);
  expect(await smtp.say('DATA')).toMatch(/^354/);
  expect(await smtp.data('From: Bob <bob@partner.example>\r\nSubject: Hello\r\n\r\nHi there')).toMatch(/^250/);
  smtp.close();
}, 300_000);
