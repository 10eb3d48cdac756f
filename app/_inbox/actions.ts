'use client';
import { trpc } from '@/app/_lib/trpc-client';
import type { NeedsMeItem } from '@/app/_lib/types';

/*
 * The decisions an inbox item takes, each through its feature's own procedure (the same services
 * as the API): approve a cart with the hash the person saw, cancel it, approve or decline a
 * proposed task, resume a stopped one, open a handoff's browser. Each answers the words of its
 * outcome, or null when the item has no such decision.
 */

const q = (t: string) => `“${t}”`;

export async function approveItem(item: NeedsMeItem): Promise<string | null> {
  switch (item.kind) {
    case 'cart':
      await trpc.approvals.approve.mutate({ cartId: item.cart.id, contentHash: item.cart.contentHash });
      return `Approved ${q(item.cart.taskTitle)}: it is being sent.`;
    case 'proposal':
      await trpc.tasks.approve.mutate({ taskId: item.task.id });
      return `Approved ${q(item.task.title)}: the assistant starts on it.`;
    case 'stuck':
      await trpc.tasks.process.mutate({ taskId: item.task.id });
      return `${q(item.task.title)} resumes.`;
    default:
      return null;
  }
}

export async function rejectItem(item: NeedsMeItem, reason?: string): Promise<string | null> {
  switch (item.kind) {
    case 'cart':
      await trpc.approvals.cancel.mutate({ cartId: item.cart.id, ...(reason ? { reason } : {}) });
      return `Cancelled ${q(item.cart.taskTitle)}: nothing was sent.`;
    case 'proposal':
      await trpc.tasks.decline.mutate({ taskId: item.task.id });
      return `Declined ${q(item.task.title)}.`;
    default:
      return null;
  }
}

export async function answerItem(item: Extract<NeedsMeItem, { kind: 'question' }>, answer: string): Promise<string> {
  await trpc.tasks.process.mutate({ taskId: item.task.id, message: answer });
  return `Answer sent: ${q(item.task.title)} goes on.`;
}

export async function openHandoff(item: Extract<NeedsMeItem, { kind: 'handoff' }>): Promise<void> {
  const { sessionUrl } = await trpc.handoffs.session.mutate({ handoffId: item.handoff.id });
  window.location.assign(sessionUrl);
}

/** What `r` does to the item, in words for the confirm dialog (null: nothing to refuse). */
export const rejectWords = (item: NeedsMeItem) => (item.kind === 'cart' ? { title: 'Cancel and send nothing?', button: 'Cancel: send nothing' } : item.kind === 'proposal' ? { title: 'Decline this task?', button: 'Decline' } : null);
