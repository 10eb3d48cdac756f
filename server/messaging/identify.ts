import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, identifiers, users, type AssistantRow, type UserRow } from '@/db/schema';
import type { ChannelSender } from '@/server/channels/message';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';

/*
 * Who is writing (issue: the channel layer). The layer, never an adapter, decides: a sender is
 * the assistant's owner only when the channel proved the identifier (channels/message.ts) and
 * the identifier is one of the owner's verified identifiers (spec 1: "a phone number or secondary
 * email resolves a sender only when verified"). Anyone else is an unknown sender, whatever
 * address or name they show. A thread belongs to the person: an identifier moved to another user
 * names that user from then on, and carries none of the old owner's conversations.
 */

export type Writer =
  | { kind: 'owner'; user: UserRow; assistant: AssistantRow }
  /** Someone who is not the owner (or not proven): `owner` is whom the assistant works for, if anyone. */
  | { kind: 'stranger'; owner: UserRow | null; assistant: AssistantRow };

/** The user a proven identifier names in the account, if any. */
export async function userOfIdentifier(tx: Tx, accountId: string, sender: ChannelSender): Promise<UserRow | null> {
  if (!sender.proven) return null;
  if (sender.kind === 'email') return findUserByVerifiedEmail(tx, accountId, sender.value);
  if (sender.kind !== 'phone') return null;
  const [row] = await tx
    .select({ user: users })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(and(eq(identifiers.accountId, accountId), eq(identifiers.type, 'phone'), eq(identifiers.verified, true), eq(identifiers.value, sender.value)))
    .limit(1);
  return row?.user ?? null;
}

/**
 * The writer of a message to an assistant. Only a user's own assistant has an owner to talk to;
 * a shared one (account, organization, team) works for no single person here.
 */
export async function whoIsWriting(tx: Tx, accountId: string, assistantId: string, sender: ChannelSender): Promise<Writer | null> {
  const [assistant] = await tx
    .select()
    .from(assistants)
    .where(and(eq(assistants.id, assistantId), eq(assistants.accountId, accountId), isNull(assistants.deletedAt)));
  if (!assistant) return null;
  const [owner] = assistant.scope === 'user' && assistant.userId ? await tx.select().from(users).where(eq(users.id, assistant.userId)) : [];
  const user = await userOfIdentifier(tx, accountId, sender);
  if (owner && user?.id === owner.id && owner.status === 'active') return { kind: 'owner', user: owner, assistant };
  return { kind: 'stranger', owner: owner ?? null, assistant };
}
