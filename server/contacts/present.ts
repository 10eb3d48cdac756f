import { eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { contactRelationships, contacts, users, type ContactRow } from '@/db/schema';
import { findUsersByVerifiedEmails } from '@/server/identifiers/verified-email';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Every address of a contact, lower-cased, primary first. */
export function addressesOf(c: Pick<ContactRow, 'email' | 'emails'>): string[] {
  // A contact learned from a call has no address yet (email '').
  return [...new Set([c.email, ...c.emails.map((e) => String(e.address))].map((a) => a.toLowerCase()).filter(Boolean))];
}

type Consumer = { id: string; name: string | null; email: string };

/**
 * App users the contacts point at (consumerEmail, else the contact’s email), looked up for the
 * whole page at once. A contact names a user only through a verified email identifier, and only a user of
 * the contact owner's organization (or, for an owner without one, a user without one): an
 * address someone merely claimed identifies no one, and a contact must not reveal who works
 * at another organization.
 */
async function consumers(db: Db, accountId: string, rows: ContactRow[]) {
  const byContact = new Map<string, Consumer>();
  if (!rows.length) return byContact;
  const ownerIds = [...new Set(rows.map((r) => r.userId))];
  const owners = new Map(
    (await db.select({ id: users.id, organizationId: users.organizationId }).from(users).where(inArray(users.id, ownerIds))).map((o) => [o.id, o.organizationId]),
  );
  const found = await findUsersByVerifiedEmails(db, accountId, rows.map(consumerAddress));
  for (const c of rows) {
    const u = found.get(consumerAddress(c));
    if (u && u.organizationId === (owners.get(c.userId) ?? null)) byContact.set(c.id, { id: u.id, name: u.name, email: u.email });
  }
  return byContact;
}

const consumerAddress = (c: ContactRow) => (c.consumerEmail ?? c.email).trim().toLowerCase();

export async function presentContacts(db: Db, accountId: string, rows: ContactRow[]) {
  const map = await consumers(db, accountId, rows);
  return rows.map((c) => toPublicContact(c, map.get(c.id) ?? null));
}

export function toPublicContact(c: ContactRow, consumer: Consumer | null) {
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

/**
 * The single-contact read: the contact with the relationships from and to it. A teammate reading
 * a team contact (`sharedTeamIds`: their active teams) sees only relationships with other team
 * contacts of those teams: the owner's own contacts stay theirs.
 */
export async function presentWithRelationships(db: Db, accountId: string, c: ContactRow, sharedTeamIds?: string[]) {
  const [view] = await presentContacts(db, accountId, [c]);
  const rels = await db
    .select({ r: contactRelationships, other: { id: contacts.id, name: contacts.name, email: contacts.email }, scope: contacts.scope, teamId: contacts.teamId })
    .from(contactRelationships)
    .innerJoin(contacts, eq(contacts.id, contactRelationships.toContactId))
    .where(eq(contactRelationships.fromContactId, c.id));
  const incoming = await db
    .select({ r: contactRelationships, other: { id: contacts.id, name: contacts.name, email: contacts.email }, scope: contacts.scope, teamId: contacts.teamId })
    .from(contactRelationships)
    .innerJoin(contacts, eq(contacts.id, contactRelationships.fromContactId))
    .where(eq(contactRelationships.toContactId, c.id));
  const visible = (x: (typeof rels)[number]) => !sharedTeamIds || (x.scope === 'team' && x.teamId !== null && sharedTeamIds.includes(x.teamId));
  const shape = (x: (typeof rels)[number]) => ({ id: x.r.id, type: x.r.type, contact: x.other, createdAt: x.r.createdAt.toISOString() });
  return { ...view, outgoingRelationships: rels.filter(visible).map(shape), incomingRelationships: incoming.filter(visible).map(shape) };
}
