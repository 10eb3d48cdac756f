import { and, eq, or } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { contactRelationships, contacts, type ContactRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest } from '@/server/http/errors';
import type { MergeBody } from './contracts';
import { presentWithRelationships } from './present';
import { indexAddresses, normalizeEmails, ownedContact } from './service';
import { moveTaskLinks } from './task-links';

type Json = Record<string, unknown>;
const unionBy = <T extends Json>(a: T[], b: T[], key: (x: T) => string) => {
  const seen = new Set(a.map(key));
  return [...a, ...b.filter((x) => !seen.has(key(x)))];
};

/** The combined record: this contact's values win, the other fills what this one lacks. */
function combine(keep: ContactRow, other: ContactRow, preferredEmail: string | undefined) {
  const pick = <K extends keyof ContactRow>(k: K) => (keep[k] ?? other[k]) as ContactRow[K];
  const allEmails = unionBy(keep.emails, other.emails, (e) => String(e.address).toLowerCase());
  const addresses = allEmails.map((e) => String(e.address).toLowerCase());
  if (preferredEmail && !addresses.includes(preferredEmail)) {
    throw badRequest('preferredEmail: must be one of the two contacts’ addresses');
  }
  // A contact learned from a call has no address of its own: the other's becomes the primary.
  const primary = preferredEmail ?? (keep.email || other.email);
  return {
    email: primary,
    emails: primary ? normalizeEmails(primary, allEmails) : [],
    name: pick('name'),
    preferredName: pick('preferredName'),
    phones: unionBy(keep.phones, other.phones, (p) => String(p.number)),
    iMessageCapable: pick('iMessageCapable'),
    company: pick('company'),
    title: pick('title'),
    timezone: pick('timezone'),
    tzOffset: pick('tzOffset'),
    photoUrl: pick('photoUrl'),
    website: pick('website'),
    bookingLink: pick('bookingLink'),
    social: { ...other.social, ...keep.social },
    address: { ...other.address, ...keep.address },
    enrichedAt: pick('enrichedAt'),
    lastContactedAt: [keep.lastContactedAt, other.lastContactedAt].filter(Boolean).sort((a, b) => b!.getTime() - a!.getTime())[0] ?? null,
    externalIds: unionBy(keep.externalIds, other.externalIds, (x) => `${x.integration}:${x.externalId}`),
    properties: { ...other.properties, ...keep.properties },
    priority: Math.max(keep.priority, other.priority),
    tags: [...new Set([...keep.tags, ...other.tags])],
    introducedBy: pick('introducedBy'),
  };
}

/** Merges `mergeContactId` into `contactId`: fields combined, relationships and task links moved, the other deleted. */
export async function mergeContacts(db: Db, actor: Actor, contactId: string, input: z.infer<typeof MergeBody>) {
  if (input.mergeContactId === contactId) throw badRequest('mergeContactId: cannot merge a contact into itself');
  const merged = await db.transaction(async (tx) => {
    const keep = await ownedContact(tx, actor, contactId);
    const other = await ownedContact(tx, actor, input.mergeContactId);
    const fields = combine(keep, other, input.preferredEmail);
    // Relationships of the other now start or end here; one between the two disappears.
    await tx
      .delete(contactRelationships)
      .where(
        or(
          and(eq(contactRelationships.fromContactId, keep.id), eq(contactRelationships.toContactId, other.id)),
          and(eq(contactRelationships.fromContactId, other.id), eq(contactRelationships.toContactId, keep.id)),
        ),
      );
    await tx.update(contactRelationships).set({ fromContactId: keep.id }).where(eq(contactRelationships.fromContactId, other.id));
    await tx.update(contactRelationships).set({ toContactId: keep.id }).where(eq(contactRelationships.toContactId, other.id));
    await moveTaskLinks(tx, other.id, keep.id);
    await tx.delete(contacts).where(eq(contacts.id, other.id));
    const [row] = await tx.update(contacts).set(fields).where(eq(contacts.id, keep.id)).returning();
    await indexAddresses(tx, row);
    return row;
  });
  return { ok: true as const, contact: await presentWithRelationships(db, actor.accountId, merged) };
}
