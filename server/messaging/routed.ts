import type { QueuedChatTurn } from '@/server/chats/turn-queue';

/** What became of an inbound message (messaging/inbound.ts, strangers.ts). */
export type Routed = {
  status: 'attached' | 'chat' | 'unmatched';
  reason: string | null;
  chatId: string | null;
  taskId: string | null;
  /** The chat message or task activity it became. */
  activityId: string | null;
  /** Turns to start once the caller's transaction has committed. */
  turns: QueuedChatTurn[];
  /** Someone other than the owner wrote: the owner's `email.received` workflows hear of it (external, untrusted). */
  external: { userId: string; chatId: string } | null;
  /** The assistant is inactive: what to tell the sender on the channel they used (null: say nothing). */
  refusal: string | null;
};

export const routed = (r: Partial<Routed> & Pick<Routed, 'status'>): Routed => ({ reason: null, chatId: null, taskId: null, activityId: null, turns: [], external: null, refusal: null, ...r });

