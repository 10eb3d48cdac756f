import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { upload } from '../files/documents';
import { call, newAccount } from '../helpers/client';
import { startGmailFake, type GmailFake } from '../helpers/gmail-fake';
import { startGraphFake, type GraphFake } from '../helpers/graph-fake';
import { connect } from '../mailboxes/support/flow';

/*
 * Issue 41, rich mail and files from the user's mailbox: mail goes out as multipart/alternative
 * (the approved text, and the same words as HTML); an assistant whose signature is HTML signs its
 * HTML part with it (sanitized) while the text keeps the plain form the person approved; and
 * email_as_user with files goes through the connected Gmail or Microsoft 365 mailbox with the
 * files attached, instead of failing.
 */
const h = useCartHarness();
const { app, person, cells, stagingRun, cartOfRun, cartReaches, readCart, approve, mails, until } = h;

let gmail: GmailFake;
let graph: GraphFake;
const ENV = [
  'GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'STEWARD_GOOGLE_AUTH_URL', 'STEWARD_GOOGLE_TOKEN_URL', 'STEWARD_GMAIL_API_URL',
  'MICROSOFT_CLIENT_ID', 'MICROSOFT_CLIENT_SECRET', 'STEWARD_MICROSOFT_LOGIN_URL', 'STEWARD_GRAPH_API_URL', 'MICROSOFT_TENANT',
];
beforeAll(async () => {
  gmail = await startGmailFake();
  graph = await startGraphFake();
  Object.assign(process.env, gmail.env, graph.env);
});
afterAll(async () => {
  for (const k of ENV) delete process.env[k];
  await gmail?.close();
  await graph?.close();
});

const SIGNATURE = '<p><b>Ada</b> · assistant to Penny</p><p><a href="https://example.org/penny">example.org</a><img src="http://tracker.example/x.gif"></p><script>alert(1)</script>';

async function released(p: Awaited<ReturnType<typeof person>>, args: Record<string, unknown>) {
  const { runId } = await stagingRun(p, [emailCall(args)]);
  const cart = await cartOfRun(runId);
  await cartReaches(cart.id, ['pending_approval']);
  const shown = await readCart(p, cart.id);
  const approved = await approve(p, cart.id, { contentHash: shown.contentHash });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  await cartReaches(cart.id, ['executed']);
  return shown;
}

describe('rich mail', () => {
  it('the assistant’s mail carries its text and the same words as HTML, signed with its sanitized HTML signature', async () => {
    const p = await person(await newAccount(app()));
    const put = await call(app(), `/assistants/${p.assistantId}`, { method: 'PUT', key: p.key, body: { signature: SIGNATURE, signatureEditorMode: 'html' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const shown = await released(p, { subject: 'Rich dinner', body: 'Hi Bob,\n\nDinner on Friday at 8 <or 9>?' });
    // What the person approved shows the signature's plain form.
    expect(shown.dispatches[0].body).toContain('-- \nAda · assistant to Penny');

    const mail = await until(async () => mails().find((m) => m.parsed.subject === 'Rich dinner') ?? null, 20_000);
    expect(mail.parsed.text).toContain('Dinner on Friday at 8 <or 9>?');
    expect(mail.parsed.text).toContain('Ada · assistant to Penny');
    const html = String(mail.parsed.html);
    expect(html).toContain('<p>Hi Bob,</p>');
    expect(html).toContain('Dinner on Friday at 8 &lt;or 9&gt;?');
    expect(html).toContain('<b>Ada</b> · assistant to Penny');
    expect(html).toContain('<a href="https://example.org/penny">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('tracker.example');
    expect(mail.raw.toString()).toMatch(/multipart\/alternative/i);
  });

  it('a text signature: the HTML part says the same words and no more', async () => {
    const p = await person(await newAccount(app()));
    await call(app(), `/assistants/${p.assistantId}`, { method: 'PUT', key: p.key, body: { signature: 'Ada\nassistant to Penny', signatureEditorMode: 'visual' } });
    await cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    await released(p, { subject: 'Plain dinner', body: 'Hi Bob,\nFriday?' });
    const mail = await until(async () => mails().find((m) => m.parsed.subject === 'Plain dinner') ?? null, 20_000);
    const html = String(mail.parsed.html);
    expect(html).toContain('<p>Hi Bob,<br>Friday?</p>');
    expect(html).toContain('Ada<br>assistant to Penny');
    expect(html).not.toContain('<b>');
  });
});

describe('files from the user’s own mailbox', () => {
  let n = 0;
  for (const provider of ['gmail', 'outlook'] as const) {
    it(`email_as_user with a file goes out from the connected ${provider} mailbox with the file attached`, async () => {
      const p = await person(await newAccount(app()));
      const address = `ada${++n}.${Date.now().toString(36)}@${provider === 'gmail' ? 'gmail.test' : 'contoso.test'}`;
      const fake = provider === 'gmail' ? gmail : graph;
      fake.addMailbox(address);
      fake.oauth.consentAs = address;
      await connect(app(), p.key, provider);
      await cells(p, { email_as_user: { mode: 'manual', undoDelaySec: 0 }, files: { mode: 'manual', undoDelaySec: 0 } });
      const bytes = Buffer.from('name,amount\nrent,900\n');
      const fileId = await upload(app(), p.key, 'budget.csv', bytes);
      await released(p, { asUser: true, subject: `Budget via ${provider}`, attachments: [fileId] });

      const sent = fake.sent.filter((s) => s.user === address);
      expect(sent).toHaveLength(1);
      const message = await simpleParser(sent[0].raw);
      expect(message.subject).toBe(`Budget via ${provider}`);
      expect(message.from?.value[0].address).toBe(address);
      expect(message.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content.toString() }))).toEqual([
        { filename: 'budget.csv', contentType: 'text/csv', content: bytes.toString() },
      ]);
      expect(String(message.html)).toContain('Dinner on Friday at 8?');
      // Nothing went by SMTP instead.
      expect(mails().filter((m) => m.parsed.subject === `Budget via ${provider}`)).toHaveLength(0);
    });
  }
});
