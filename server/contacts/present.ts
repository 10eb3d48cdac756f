import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { contactRelationships, contacts, identifiers, users, type ContactRow } from '@/db/schema';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Every address of a contact, lower-cased, primary first. */
export function addressesOf(c: Pick<ContactRow, 'email' | 'emails'>): string[] {
  return [...new Set([c.email, ...c.emails.map((e) => String(e.address))].map((a) => a.toLowerCase()))];
}

/** App users the contacts point at (consumerEmail), looked up in one query. */
async function consumers(db: Db, accountId: string, rows: ContactRow[]) {
  const emails = [...new Set(rows.map((r) => r.consumerEmail ?? r.email))];
  if (!emails.length) return new Map<string, { id: string; name: string | null; email: string }>();
  const found = await db
    .select({ value: identifiers.value, id: users.id, name: users.name, email: users.email })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(and(eq(identifiers.accountId, accountId), eq(identifiers.type, 'email'), inArray(identifiers.value, emails)));
  return new Map(found.map((f) => [f.value, { id: f.id, name: f.name, email: f.email }]));
}

export async function presentContacts(db: Db, accountId: string, rows: ContactRow[]) {
  const map = await consumers(db, accountId, rows);
  return rows.map((c) => toPublicContact(c, map.get(c.consumerEmail ?? c.email) ?? null));
}

export function toPublicContact(c: ContactRow, consumer: { id: string; name: string | null; email: string } | null) {
  return {
    id: c.id,
    user: c.userId,
    name: c.name,
    preferredName: c.preferredName,
    email: c.email,
    emails: c.emails,
    phones: c.phones,
    iMessageCapable: c.iMessageCapable,
    company: c.company ?? null,
    title: c.title,
    timezone: c.timezone,
    tzOffset: c.tzOffset,
    photoUrl: c.photoUrl,
    website: c.website,
    bookingLink: c.bookingLink,
    social: c.social,
    address: c.address,
    enrichedAt: iso(c.enrichedAt),
    lastContactedAt: iso(c.lastContactedAt),
    source: c.source ?? null,
    externalIds: c.externalIds,
    properties: c.properties,
    priority: c.priority,
    inheritCompanyPriority: c.inheritCompanyPriority,
    tags: c.tags,
    introducedBy: c.introducedBy,
    scope: c.scope,
    team: c.teamId,
    status: c.status,
    consumer,
    assistant: c.assistant ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** The single-contact read: the contact with the relationships from and to it. */
export async function presentWithRelationships(db: Db, accountId: string, c: ContactRow) {
  const [view] = await presentContacts(db, accountId, [c]);
  const rels = await db
    .select({ r: contactRelationships, other: { id: contacts.id, name: contacts.name, email: contacts.email } })
    .from(contactRelationships)
    .innerJoin(contacts, eq(contacts.id, contactRelationships.toContactId))
    .where(eq(contactRelationships.fromContactId, c.id));
  const incoming = await db
    .select({ r: contactRelationships, other: { id: contacts.id, name: contacts.name, email: contacts.email } })
    .from(contactRelationships)
    .innerJoin(contacts, eq(contacts.id, contactRelationships.fromContactId))
    .where(eq(contactRelationships.toContactId, c.id));
  const shape = (x: (typeof rels)[number]) => ({ id: x.r.id, type: x.r.type, contact: x.other, createdAt: x.r.createdAt.toISOString() });
  return { ...view, outgoingRelationships: rels.map(shape), incomingRelationships: incoming.map(shape) };
}
