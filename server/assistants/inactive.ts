import { conflict } from '@/server/http/errors';

/**
 * An inactive assistant takes no new work (spec 1, Assistant `status`; issue 46): creating a task
 * or a chat with it is 409 `assistant_inactive`, naming the field, whoever asks (API, app, agent).
 */
export const assistantInactive = (field: string) =>
  conflict(
    `${field}: this assistant is inactive and takes no new tasks or chats; make it active (PUT /assistants/{assistantId} with status active) or choose another`,
    { fields: [{ field, problem: 'is inactive' }] },
    'assistant_inactive',
  );

/** What the sender of a message to an inactive assistant is told, unless the assistant's `metadata.inactiveReply` says otherwise. */
export const INACTIVE_REPLY = 'This assistant is not active at the moment, so your message was not passed on. Please reach its owner another way.';

export function inactiveReply(metadata: Record<string, unknown> | null | undefined): string {
  const own = metadata?.inactiveReply;
  return typeof own === 'string' && own.trim() ? own.trim().slice(0, 1000) : INACTIVE_REPLY;
}
