import { expect, it } from 'vitest';
import { call } from '../helpers/client';
import { useCartWorld } from '../approvals/cart-world';

/** Issue 46: sharing the user's files (attachments on a dispatch) follows the `files` cell too; the stricter cell decides. */
const { setup, runningTask, stage, submit, emailAsUser, app } = useCartWorld();

it('an attachment makes the `files` cell apply: manual files holds an otherwise automatic email; without files it goes', async () => {
  const { a } = await setup();
  const manual = await call(app(), `/users/${a.id}/preferences/supervision/matrix`, { key: a.key, method: 'PATCH', body: { matrix: { files: { mode: 'manual' } } } });
  expect(manual.status).toBe(200);
  const asAssistant = { actionType: 'email_as_assistant' as const };

  const plain = await runningTask(a);
  const bare = await stage(plain.taskId, plain.runId, emailAsUser(asAssistant));
  expect(await submit(bare.cartId)).toMatchObject({ status: 'approved' });

  const withFile = await runningTask(a);
  const attached = await stage(withFile.taskId, withFile.runId, emailAsUser({ ...asAssistant, files: [{ filename: 'menu.pdf', mimeType: 'application/pdf', size: 12, fileId: 'f1' }] }));
  expect(await submit(attached.cartId)).toMatchObject({ status: 'pending_approval' });
});
