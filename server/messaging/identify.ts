import { and, eq, isNull, sql } from 'drizzle-orm';
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
 * The assistant, its owner and (for a proven phone number, the case of every text and call)
 * whether the number is one of the owner's verified identifiers are read in one statement: this
 * runs inside the transaction of every inbound message, where each round trip holds a connection
 * and its locks longer (issue 40). Numbers are unique in an account (identifiers_account_value),
 * so "the user the number names is the owner" is "the owner holds the number, verified".
 */
export async function whoIsWriting(tx: Tx, accountId: string, assistantId: string, sender: ChannelSender): Promise<Writer | null> {
  const provenPhone = sender.proven && sender.kind === 'phone';
  const [row] = await tx
    .select({
      assistant: assistants,
      owner: users,
      ownerHoldsNumber: provenPhone
        ? sql<boolean>`exists (select 1 from ${identifiers} where ${identifiers.accountId} = ${accountId} and ${identifiers.type} = 'phone' and ${identifiers.verified} and ${identifiers.value} = ${sender.value} and ${identifiers.userId} = ${users.id})`
        : sql<boolean>`false`,
    })
    .from(assistants)
    .leftJoin(users, and(eq(assistants.scope, 'user'), eq(users.id, assistants.userId)))
    .where(and(eq(assistants.id, assistantId), eq(assistants.accountId, accountId), isNull(assistants.deletedAt)));
  if (!row) return null;
  const { assistant, owner } = row;
  const isOwner = owner !== null && (provenPhone ? row.ownerHoldsNumber : (await userOfIdentifier(tx, accountId, sender))?.id === owner.id);
  if (owner && isOwner && owner.status === 'active') return { kind: 'owner', user: owner, assistant };
  return { kind: 'stranger', owner: owner ?? null, assistant };
}
