import { describe, expect, it } from 'vitest';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { upload } from './documents';

/*
 * Outbound email carries files (spec 2: a dispatch's files[]): send_email's attachments are the
 * user's files, shown on the staged email with name, type and size, and sent as real attachments
 * once released. A file the user cannot read is refused at staging, naming nothing.
 */

const h = useCartHarness();
const { app } = h;

describe('email attachments', () => {
  it('stages the files on the email and sends them as attachments', async () => {
    const acct = await newAccount(app());
    const a = await h.person(acct);
    const bytes = Buffer.from('name,amount\nrent,900\n');
    const fileId = await upload(app(), a.key, 'budget.csv', bytes);
    // Attached files are shared: the `files` cell applies beside the email's, and its undo window too.
    await h.cells(a, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 }, files: { mode: 'manual', undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(a, [emailCall({ attachments: [fileId] })]);
    const cart = await h.cartOfRun(runId);
    await h.cartReaches(cart.id, ['pending_approval']);
    const shown = await h.readCart(a, cart.id);
    expect(shown.dispatches[0].files).toEqual([{ fileId, filename: 'budget.csv', mimeType: 'text/csv', size: bytes.length }]);

    const approved = await h.approve(a, cart.id, { contentHash: shown.contentHash });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const mail = await h.until(async () => {
      const row = await h.dispatchRow(cart.id);
      if (row.deliveryState === 'failed') throw new Error(row.failureReason ?? 'failed');
      return h.mails().find((m) => m.parsed.subject === 'Dinner on Friday') ?? null;
    }, 20_000);
    expect(mail.parsed.attachments.map((x) => ({ filename: x.filename, contentType: x.contentType, content: x.content.toString() }))).toEqual([
      { filename: 'budget.csv', contentType: 'text/csv', content: bytes.toString() },
    ]);
    // The record step follows the send: the dispatch says it was accepted.
    await h.until(async () => ((await h.dispatchRow(cart.id)).deliveryState === 'provider_accepted' ? true : null), 10_000);
  });

  it("refuses another user's file at staging without naming it", async () => {
    const acct = await newAccount(app());
    const a = await h.person(acct);
    const b = await h.person(acct);
    const theirs = await upload(app(), b.key, 'payroll.xlsx', Buffer.from('secret'));
    const { taskId } = await h.stagingRun(a, [emailCall({ attachments: [theirs] })]);
    const activities = await call(app(), `/tasks/${taskId}/activities`, { key: a.key });
    const tool = activities.body.activities.find((x: { toolCall: { name: string } | null }) => x.toolCall?.name === 'send_email');
    expect(tool.toolCall.output).toEqual({ error: 'File not found' });
    expect(JSON.stringify(tool.toolCall.output)).not.toContain('payroll');
  });
});
