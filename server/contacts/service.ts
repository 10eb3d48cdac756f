import { and, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { countedTotal, countedVersion, countWhere, readPage } from '@/db/queries/list-page';
import { contactAddresses, contacts, contactSearchText, users, type ContactRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { badRequest, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import type { CreateContactBody, ListContactsQuery, UpdateContactBody } from './contracts';
import { addressesOf, presentContacts, presentWithRelationships } from './present';
import { activeTeamIds, readableContact, refuseTeammate, resolveContactTeam, teammatesContacts } from './team';
import { AppError } from '@/server/http/errors';

/** The contact, when it belongs to the acting user; 404 otherwise. */
export async function ownedContact(db: Tx, actor: Actor, id: string): Promise<ContactRow> {
  const [c] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.id, id), eq(contacts.accountId, actor.accountId), eq(contacts.userId, requireUser(actor).id)))
    .limit(1);
  if (!c) throw notFound('Contact');
  return c;
}

/** The caller's own contact, to change: a teammate's team contact is 403, anything else 404. */
export async function changeableContact(db: Tx, actor: Actor, id: string): Promise<ContactRow> {
  try {
    return await ownedContact(db, actor, id);
  } catch (e) {
    if (e instanceof AppError && e.status === 404) return refuseTeammate(db, actor, id);
    throw e;
  }
}

/** Replaces the contact's address index; an address another of the user's contacts holds is a 400. */
export async function indexAddresses(tx: Tx, c: ContactRow) {
  await tx.delete(contactAddresses).where(eq(contactAddresses.contactId, c.id));
  const addresses = addressesOf(c);
  if (!addresses.length) return;
  const [taken] = await tx
    .select({ address: contactAddresses.address })
    .from(contactAddresses)
    .where(and(eq(contactAddresses.userId, c.userId), inArray(contactAddresses.address, addresses)))
    .limit(1);
  if (taken) throw badRequest(`email: ${taken.address} already belongs to another of your contacts`);
  try {
    await tx.insert(contactAddresses).values(addresses.map((address) => ({ contactId: c.id, userId: c.userId, address })));
  } catch (e) {
    // A concurrent write took one of the addresses between the check and the insert.
    if ((e as { cause?: { code?: string } }).cause?.code === '23505' || (e as { code?: string }).code === '23505') {
      throw badRequest('email: one of these addresses already belongs to another of your contacts');
    }
    throw e;
  }
}

/** The emails array always holds the primary address, marked primary. */
export function normalizeEmails(primary: string, emails: Array<Record<string, unknown>> | undefined) {
  const list = (emails ?? []).map((e) => ({ ...e, address: String(e.address).toLowerCase(), primary: false }));
  const withPrimary = list.some((e) => e.address === primary) ? list : [{ address: primary, type: 'other', source: null, primary: false }, ...list];
  return withPrimary.map((e) => ({ ...e, primary: e.address === primary }));
}

export async function createContact(db: Db, actor: Actor, input: z.infer<typeof CreateContactBody>) {
  const userId = requireUser(actor).id;
  const c = await db.transaction(async (tx) => {
    const teamId = await resolveContactTeam(tx, actor, input.scope ?? 'user', input.team);
    const [row] = await tx
      .insert(contacts)
      .values({
        accountId: actor.accountId,
        userId,
        email: input.email,
        emails: normalizeEmails(input.email, input.emails),
        name: input.name ?? null,
        preferredName: input.preferredName ?? null,
        phones: input.phones ?? [],
        company: input.company ?? null,
        title: input.title ?? null,
        timezone: input.timezone ?? null,
        properties: input.properties ?? {},
        scope: input.scope ?? 'user',
        teamId,
        tags: input.tags ?? [],
        priority: input.priority ?? 0,
        inheritCompanyPriority: input.inheritCompanyPriority ?? false,
        consumerEmail: input.consumerEmail ?? input.email,
        source: input.source ?? { type: 'manual', userId },
        externalIds: input.externalIds ?? [],
      })
      .returning();
    await indexAddresses(tx, row);
    return row;
  });
  return { ok: true as const, contact: await presentWithRelationships(db, actor.accountId, c) };
}

/** The caller's own contact, or a team contact of one of their active teams (its relationships limited to what they may see). */
export async function getContact(db: Db, actor: Actor, id: string) {
  const c = await readableContact(db, actor, id);
  const reader = requireUser(actor).id;
  const shared = c.userId === reader ? undefined : await activeTeamIds(db, reader);
  return { ok: true as const, contact: await presentWithRelationships(db, actor.accountId, c, shared) };
}

/** Only the fields sent change. */
export async function updateContact(db: Db, actor: Actor, id: string, input: z.infer<typeof UpdateContactBody>) {
  const c = await db.transaction(async (tx) => {
    const current = await changeableContact(tx, actor, id);
    const { team, emails, lastContactedAt, enrichedAt, ...rest } = input;
    const set: Partial<typeof contacts.$inferInsert> = { ...rest };
    if (emails !== undefined) {
      // A contact without an address (learned from a call) takes the first one it is given as its primary.
      const primary = current.email || (emails[0] ? String(emails[0].address).toLowerCase() : '');
      set.emails = primary ? normalizeEmails(primary, emails) : [];
      if (primary !== current.email) Object.assign(set, { email: primary, consumerEmail: current.consumerEmail ?? primary });
    }
    // A team scope names a team the owner is an active member of (their active team by default).
    if (input.scope !== undefined || team !== undefined) {
      const scope = input.scope ?? current.scope;
      set.teamId = await resolveContactTeam(tx, actor, scope, team ?? (scope === 'team' ? current.teamId : null));
    }
    if (lastContactedAt !== undefined) set.lastContactedAt = lastContactedAt ? new Date(lastContactedAt) : null;
    if (enrichedAt !== undefined) set.enrichedAt = enrichedAt ? new Date(enrichedAt) : null;
    const changes = changedFields(set);
    if (!changes) return current;
    const [row] = await tx.update(contacts).set(changes).where(eq(contacts.id, current.id)).returning();
    if (emails !== undefined) await indexAddresses(tx, row);
    return row;
  });
  return { ok: true as const, contact: await presentWithRelationships(db, actor.accountId, c) };
}

export async function deleteContact(db: Db, actor: Actor, id: string) {
  const c = await changeableContact(db, actor, id);
  await db.delete(contacts).where(eq(contacts.id, c.id));
  return { ok: true as const, contact: { id: c.id, deleted: true as const, message: 'Contact deleted' } };
}

/**
 * Lists a user's contacts: the acting user's, or with an account-wide key and no
 * X-User-Email the user named by `userId`.
 */
export async function listContacts(db: Db, actor: Actor, q: z.infer<typeof ListContactsQuery>) {
  let userId: string;
  if (actor.user) userId = actor.user.id;
  else if (isAccountWide(actor) && q.userId) {
    const [u] = await db.select({ id: users.id }).from(users).where(and(eq(users.id, q.userId), eq(users.accountId, actor.accountId)));
    if (!u) throw notFound('User');
    userId = u.id;
  } else {
    throw badRequest('userId: required to list contacts with an account key without X-User-Email');
  }
  const filters: SQL[] = [eq(contacts.accountId, actor.accountId), eq(contacts.userId, userId)];
  // The one list_counts facet a single filter maps to ('' for none); null when the total takes a count.
  const facets: Array<string | null> = [];
  if (q.status) {
    filters.push(eq(contacts.status, q.status));
    facets.push(`status:${q.status}`);
  }
  if (q.scope) {
    filters.push(eq(contacts.scope, q.scope));
    facets.push(`scope:${q.scope}`);
  }
  if (q.sourceType) {
    filters.push(sql`${contacts.source}->>'type' = ${q.sourceType}`);
    facets.push(`source:${q.sourceType}`);
  }
  // Any single field matching means the combined text matches: the trigram index finds the
  // candidates through it, the per-field test keeps exactly the spec's matches.
  const search = (term: string, fields: SQL[]) => and(ilike(contactSearchText(contacts), term), or(...fields))!;
  if (q.search) {
    const term = containsPattern(q.search);
    filters.push(search(term, [ilike(contacts.name, term), ilike(contacts.preferredName, term), ilike(contacts.email, term)]));
    facets.push(null);
  }
  if (q.q) {
    const term = containsPattern(q.q);
    filters.push(
      search(term, [
        ilike(contacts.name, term),
        ilike(contacts.preferredName, term),
        ilike(contacts.email, term),
        ilike(contacts.title, term),
        sql`${contacts.company}->>'name' ILIKE ${term}`,
        sql`${contacts.emails}::text ILIKE ${term}`,
      ]),
    );
    facets.push(null);
  }
  const tags = [...new Set(q.tags?.split(',').map((t) => t.trim()).filter(Boolean) ?? [])].sort();
  if (tags.length) {
    filters.push(sql`${contacts.tags} ?| array[${sql.join(tags.map((t) => sql`${t}`), sql`, `)}]::text[]`);
    facets.push(tags.length === 1 ? `tag:${tags[0]}` : null);
  }
  const where = and(...filters)!;
  const facet = facets.length === 0 ? '' : facets.length === 1 ? facets[0] : null;
  const owner = `u:${actor.accountId}:${userId}`;
  // A member also sees the team contacts their teammates share with their active teams (team.ts).
  const shared = actor.user ? await sharedPart(db, actor.accountId, userId, filters.slice(2)) : null;
  if (shared) {
    const { rows, total } = await readPage(
      db,
      { table: contacts, parts: [where, shared], total: sql`(${countWhere(contacts, where)} + ${countWhere(contacts, shared)})`, version: null, key: null },
      pageWindow(q),
    );
    return { ok: true as const, contacts: await presentContacts(db, actor.accountId, rows), ...pageInfo(q, total ?? 0) };
  }
  const { rows, total: counted } = await readPage(
    db,
    {
      table: contacts,
      parts: [where],
      // A search reads its matches once (trigram index) and counts them as it goes.
      total: q.search || q.q ? 'matches' : facet !== null ? countedTotal('contacts', facet, [owner]) : countWhere(contacts, where),
      version: countedVersion('contacts', [owner]),
      key: JSON.stringify(['contacts', owner, q.status ?? null, q.scope ?? null, q.sourceType ?? null, q.search ?? null, q.q ?? null, tags]),
    },
    pageWindow(q),
  );
  const total = counted ?? 0;
  return { ok: true as const, contacts: await presentContacts(db, actor.accountId, rows), ...pageInfo(q, total) };
}

/**
 * The list's part for teammates' team contacts, or null when the user's active teams hold none
 * (the common case: the list is then exactly the owner's, with its counters and page marks).
 */
async function sharedPart(db: Db, accountId: string, userId: string, filters: SQL[]): Promise<SQL | null> {
  const teamIds = await activeTeamIds(db, userId);
  if (!teamIds.length) return null;
  const part = teammatesContacts(accountId, userId, teamIds);
  const [any] = await db.select({ id: contacts.id }).from(contacts).where(part).limit(1);
  return any ? and(part, ...filters)! : null;
}
