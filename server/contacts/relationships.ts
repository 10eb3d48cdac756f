import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { contactRelationships, contacts, type ContactRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, notFound } from '@/server/http/errors';
import type { RelationshipBody } from './contracts';
import { changeableContact, ownedContact } from './service';

/*
 * Contact relationships (spec 2: GET /contacts/{contactId} shows outgoing and incoming ones; the
 * spec has no write path). Written as a sub-resource of the contact they start from:
 *   POST   /contacts/{contactId}/relationships      {toContactId, type}  (201; 200 when it exists)
 *   DELETE /contacts/{contactId}/relationships/{relationshipId}
 * Both contacts are the caller's own: a relationship is a fact the owner keeps about their
 * contacts. The agent's save_contact writes through the same function.
 */

export const presentRelationship = (r: typeof contactRelationships.$inferSelect) => ({
  id: r.id,
  fromContactId: r.fromContactId,
  toContactId: r.toContactId,
  type: r.type,
  createdAt: r.createdAt.toISOString(),
});

/** Adds `from → to` of this type unless it exists (under a lock on `from`, so two concurrent adds make one). */
export async function relate(tx: Tx, from: ContactRow, to: ContactRow, type: string) {
  if (from.id === to.id) throw badRequest('toContactId: a contact cannot be related to itself');
  await tx.select({ id: contacts.id }).from(contacts).where(eq(contacts.id, from.id)).for('update');
  const [existing] = await tx
    .select()
    .from(contactRelationships)
    .where(and(eq(contactRelationships.fromContactId, from.id), eq(contactRelationships.toContactId, to.id), eq(contactRelationships.type, type)))
    .limit(1);
  if (existing) return { created: false, relationship: existing };
  const [row] = await tx.insert(contactRelationships).values({ userId: from.userId, fromContactId: from.id, toContactId: to.id, type }).returning();
  return { created: true, relationship: row };
}

export async function addRelationship(db: Db, actor: Actor, contactId: string, input: z.infer<typeof RelationshipBody>) {
  return db.transaction(async (tx) => {
    const from = await changeableContact(tx, actor, contactId);
    const to = await ownedContact(tx, actor, input.toContactId).catch(() => {
      throw notFound('toContactId: contact');
    });
    const { created, relationship } = await relate(tx, from, to, input.type);
    return { status: created ? 201 : 200, body: { ok: true as const, relationship: presentRelationship(relationship) } };
  });
}

export async function removeRelationship(db: Db, actor: Actor, contactId: string, relationshipId: string) {
  return db.transaction(async (tx) => {
    const from = await changeableContact(tx, actor, contactId);
    const [gone] = await tx
      .delete(contactRelationships)
      .where(and(eq(contactRelationships.id, relationshipId), eq(contactRelationships.fromContactId, from.id)))
      .returning({ id: contactRelationships.id });
    if (!gone) throw notFound('Relationship');
    return { ok: true as const, relationship: { id: gone.id, deleted: true as const } };
  });
}
