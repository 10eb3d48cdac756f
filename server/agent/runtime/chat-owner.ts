import type { Tx } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import type { ChatRef } from '@/server/chats/tools/registry';
import { ownerActor } from './owner-actor';

/**
 * The actor a chat turn acts as: the chat's owner with a user-level credential's rights, as a task
 * run acts for its task's owner (null when the owner can no longer act). The agent credential
 * names the chat where a task run names its task: nothing checks it but the memories service,
 * which then files a saved memory under the user's primary assistant.
 */
export const chatOwnerActor = (db: Tx, chat: ChatRef, turnId: string): Promise<UserActor | null> =>
  ownerActor(db, { accountId: chat.accountId, userId: chat.userId, id: chat.id }, turnId);
