import { eq } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Tx } from '@/db/client';
import { activeMembership } from '@/db/queries/memberships';
import { assistants, type TaskRow, type UserRow } from '@/db/schema';
import { signatureAsText } from '@/server/mail/rich-text';
import type { StagedDispatch } from './contracts';

/*
 * What Steward adds to a message the assistant writes as itself, when it is staged, so the person
 * sees (and approves) exactly what goes out (spec document 1: the assistant's `signature`; the
 * team's `brandingOnMessages` and `brandingOnEvents`): the assistant's signature under its emails,
 * and, where the owner's team keeps branding on, a line saying the message comes from the user's
 * AI assistant (calendar invitations: in the event's description). Mail sent as the user carries
 * neither: it is the user's own.
 */

const ownerName = (u: Pick<UserRow, 'name' | 'firstName' | 'lastName' | 'email'>) => u.name?.trim() || `${u.firstName} ${u.lastName}`.trim() || u.email;

export async function decorateStaged(tx: Tx, owner: UserRow, task: Pick<TaskRow, 'assistantId'>, staged: StagedDispatch): Promise<StagedDispatch> {
  if (staged.actionType === 'email_as_user') return staged;
  if (staged.type !== 'email' && staged.type !== 'message' && staged.type !== 'calendar_event') return staged;
  const [[assistant], membership] = await atOnce(tx, [
    () => tx.select({ name: assistants.name, signature: assistants.signature, mode: assistants.signatureEditorMode }).from(assistants).where(eq(assistants.id, task.assistantId)),
    () => activeMembership(tx, owner.id),
  ]);
  if (!assistant) return staged;
  const brandMessages = membership?.t.brandingOnMessages ?? true;
  const brandEvents = membership?.t.brandingOnEvents ?? true;
  const who = `${assistant.name}, AI assistant to ${ownerName(owner)}`;
  if (staged.type === 'email') {
    const signature = assistant.signature?.trim() ? (assistant.mode === 'html' ? signatureAsText(assistant.signature) : assistant.signature.trim()) : null;
    const footer = [signature, brandMessages ? `Sent by ${who}.` : null].filter(Boolean).join('\n');
    return footer && staged.body ? { ...staged, body: `${staged.body.trimEnd()}\n\n-- \n${footer}` } : staged;
  }
  if (staged.type === 'message') return brandMessages && staged.body ? { ...staged, body: `${staged.body.trimEnd()}\n— ${who}` } : staged;
  // Only a new event carries the line: a change or cancellation does not rewrite an existing event's description.
  if (!brandEvents || !staged.payload || (staged.payload.operation ?? 'create') !== 'create') return staged;
  const description = typeof staged.payload.description === 'string' && staged.payload.description ? `${staged.payload.description}\n\n` : '';
  return { ...staged, payload: { ...staged.payload, description: `${description}Scheduled by ${who}.` } };
}
