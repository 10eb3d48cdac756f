import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistants } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { useSendblueFake, type SendblueFake } from '../helpers/sendblue-fake';
import { PNG, upload } from '../files/documents';

/*
 * Files on iMessage (issue 41), through the loopback Sendblue: an approved send_message to one
 * person carries one file, uploaded to Sendblue (POST /api/upload-file) and sent with the words as
 * the send's one media_url, which the stand-in fetches as Sendblue does; two files, or a file into
 * a group, fail with the reason and Sendblue hears nothing. What is checked is what the user sees
 * (the cart and its dispatch through the API) and what Sendblue recorded.
 */

const h = useCartHarness();
const standIn = useSendblueFake();
let sendblue: SendblueFake;
beforeAll(() => {
  sendblue = standIn();
});

const number = (prefix: string) => `${prefix}${String(Math.floor(Math.random() * 9000) + 1000)}`;

/** A user whose assistant has an iMessage line; every message and file waits for their approval. */
async function owner() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { imessage: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = number('+1917557');
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
  await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
  await h.cells(p, { messaging: { mode: 'manual', undoDelaySec: 0 }, files: { mode: 'manual', undoDelaySec: 0 } });
  return { ...p, line };
}
type Owner = Awaited<ReturnType<typeof owner>>;

/** The model stages send_message on iMessage; the owner approves it through the portal; the dispatch as the API shows it once it ran. */
async function approvedMessage(p: Owner, to: string, attachments: string[], body = 'The plans') {
  const { runId } = await h.stagingRun(p, [{ name: 'send_message', arguments: { platform: 'imessage', to, body, attachments } }]);
  const staged = await h.readCart(p, (await h.cartOfRun(runId)).id);
  expect(staged.status).toBe('pending_approval');
  expect(staged.dispatches[0].files).toHaveLength(attachments.length);
  const approved = await h.approve(p, staged.id, { contentHash: staged.contentHash });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  await h.cartReaches(staged.id, ['executed', 'failed']);
  const cart = await h.readCart(p, staged.id);
  const snapshots = await call(h.app(), `/portal/carts/${staged.id}/snapshots`, { key: p.key });
  expect(snapshots.status, JSON.stringify(snapshots.body)).toBe(200);
  return { cart, dispatch: snapshots.body.snapshots[0] as { deliveryState: string; providerMessageId: string | null; failureReason: string | null } };
}

describe('files on iMessage (issue 41)', () => {
  it('one file: uploaded to Sendblue, then one send-message with the words and its media_url, whose bytes are the file', async () => {
    const p = await owner();
    const fileId = await upload(h.app(), p.key, 'FloorPlan.png', PNG, 'image/png');
    const to = number('+1917558');
    const uploadsBefore = sendblue.uploads.length;
    const { cart, dispatch } = await approvedMessage(p, to, [fileId]);
    expect(cart.status, JSON.stringify(dispatch)).toBe('executed');
    const sends = sendblue.sent.filter((s) => s.body.number === to);
    expect(sends).toHaveLength(1);
    const [sent] = sends;
    expect(sent).toMatchObject({ path: '/api/send-message', body: { from_number: p.line, content: expect.stringMatching(/^The plans/) } });
    expect(dispatch).toMatchObject({ deliveryState: 'provider_accepted', failureReason: null });
    // The bytes went up once, named after the file (Sendblue wants the extension at the end of the URL)…
    const uploads = sendblue.uploads.slice(uploadsBefore);
    expect(uploads.map((u) => u.filename)).toEqual(['FloorPlan.png']);
    expect(uploads[0]!.bytes.equals(PNG)).toBe(true);
    // …and the send named that upload; what Sendblue fetched from it is the file.
    expect(sent!.body.media_url).toBe(uploads[0]!.mediaUrl);
    expect(sent!.media!.bytes.equals(PNG)).toBe(true);
    expect(sent!.media!.contentType).toBe('image/png');
  });

  it('two files: the dispatch fails naming the limit of one, and Sendblue hears nothing', async () => {
    const p = await owner();
    const a = await upload(h.app(), p.key, 'a.png', PNG, 'image/png');
    const b = await upload(h.app(), p.key, 'b.png', PNG, 'image/png');
    const to = number('+1917559');
    const uploadsBefore = sendblue.uploads.length;
    const { cart, dispatch } = await approvedMessage(p, to, [a, b]);
    expect(cart.status).toBe('failed');
    expect(dispatch.deliveryState).toBe('failed');
    expect(dispatch.failureReason).toMatch(/An iMessage carries at most 1 file .*: nothing was sent/);
    expect(sendblue.sent.filter((s) => s.body.number === to)).toEqual([]);
    expect(sendblue.refused.filter((s) => s.body.number === to)).toEqual([]);
    expect(sendblue.uploads.length).toBe(uploadsBefore);
  });

  it('into a group the line is in: without a file it goes; with one it fails with the reason and nothing reaches the group', async () => {
    const p = await owner();
    const group = randomUUID();
    const friend = number('+1917560');
    // A member's message reaching the line makes it a member of the group (kept as context, answered by no one).
    const res = await sendblue.receive({ message_handle: randomUUID(), content: 'Hi all', from_number: friend, sendblue_number: p.line, group_id: group, participants: [friend, p.line] });
    expect(res.status).toBe(204);

    const plain = await approvedMessage(p, `group:${group}`, [], 'Hello group');
    expect(plain.cart.status, JSON.stringify(plain.dispatch)).toBe('executed');
    expect(sendblue.sent.filter((s) => s.body.group_id === group)).toHaveLength(1);

    const fileId = await upload(h.app(), p.key, 'FloorPlan.png', PNG, 'image/png');
    const uploadsBefore = sendblue.uploads.length;
    const { cart, dispatch } = await approvedMessage(p, `group:${group}`, [fileId]);
    expect(cart.status).toBe('failed');
    expect(dispatch).toMatchObject({ deliveryState: 'failed', failureReason: 'A message into a imessage group carries no files: nothing was sent' });
    expect(sendblue.sent.filter((s) => s.body.group_id === group)).toHaveLength(1);
    expect(sendblue.refused.filter((s) => s.body.group_id === group)).toEqual([]);
    expect(sendblue.uploads.length).toBe(uploadsBefore);
  });
});
