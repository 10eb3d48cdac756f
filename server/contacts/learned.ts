import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, contactAddresses, contacts, identifiers, users } from '@/db/schema';
import { normalizeEmails } from './service';

/*
 * Contacts a user's assistant learns without being told (spec 2, Contact `source`):
 * - `calendar`: the people on a new or moved event of the user's calendars, each address no
 *   contact of the user holds yet. Only events the sync fires `event.scheduled` for (upcoming,
 *   in a selected calendar, after the first import): connecting a calendar does not turn years of
 *   meetings into contacts. Events with more than MAX_ATTENDEES people (all-hands, webinars),
 *   room and group calendars, the user's own addresses and the account's assistants are skipped.
 * - `voice`: a caller the assistant took a message from, whose proven number no contact of the
 *   user holds yet. A number is all a call tells: such a contact has no email address (`email` is
 *   the empty string) until one is given to it (PUT `emails`) or it is merged with another.
 * Both write in the transaction of the event that taught them, and never fail it for a person
 * already known: an address another transaction took meanwhile is left to that one.
 */

export const MAX_ATTENDEES = 25;
/** At most this many contacts learned from one sync's events. */
const MAX_PER_SYNC = 100;

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
/** Calendars that appear as attendees: rooms, resources, groups. */
const NOT_A_PERSON = /@(resource\.calendar\.google\.com|group\.calendar\.google\.com|group\.v\.calendar\.google\.com|import\.calendar\.google\.com)$/;

type Owner = { accountId: string; userId: string };
type Attended = { attendees: Array<{ email: string; name: string | null }>; organizer: string | null };

/** The addresses of people on these events, with the first name given for each. */
function peopleOf(events: Attended[]): Map<string, string | null> {
  const people = new Map<string, string | null>();
  for (const e of events) {
    if (e.attendees.length > MAX_ATTENDEES) continue;
    const everyone = [...e.attendees, ...(e.organizer ? [{ email: e.organizer, name: null }] : [])];
    for (const a of everyone) {
      const address = String(a.email ?? '')
        .trim()
        .toLowerCase();
      if (!EMAIL.test(address) || address.length > 320 || NOT_A_PERSON.test(address)) continue;
      const name = a.name?.trim() ? a.name.trim().slice(0, 500) : null;
      if (!people.has(address) || (people.get(address) === null && name)) people.set(address, name);
    }
  }
  return people;
}

/** Addresses that are not someone else: the user's own, and the account's assistants'. */
async function ownAddresses(tx: Tx, owner: Owner, candidates: string[]): Promise<Set<string>> {
  // One after another: a transaction's client runs one query at a time.
  const mine = await tx.select({ a: identifiers.value }).from(identifiers).where(and(eq(identifiers.userId, owner.userId), inArray(identifiers.value, candidates)));
  const theirs = await tx.select({ a: users.email }).from(users).where(eq(users.id, owner.userId));
  const assistantsOf = await tx.select({ a: assistants.email }).from(assistants).where(and(eq(assistants.accountId, owner.accountId), inArray(assistants.email, candidates)));
  return new Set([...mine, ...theirs, ...assistantsOf].map((r) => String(r.a ?? '').toLowerCase()));
}

/** The people on these calendar events that are not yet contacts of the user become contacts, `source: calendar`. */
export async function learnFromCalendarEvents(tx: Tx, owner: Owner, events: Attended[]): Promise<number> {
  const people = peopleOf(events);
  if (!people.size) return 0;
  const candidates = [...people.keys()];
  const own = await ownAddresses(tx, owner, candidates);
  const known = await tx
    .select({ address: contactAddresses.address })
    .from(contactAddresses)
    .where(and(eq(contactAddresses.userId, owner.userId), inArray(contactAddresses.address, candidates)));
  const skip = new Set([...own, ...known.map((k) => k.address)]);
  const fresh = candidates.filter((a) => !skip.has(a)).slice(0, MAX_PER_SYNC);
  if (!fresh.length) return 0;
  const source = { type: 'calendar', userId: owner.userId };
  const rows = await tx
    .insert(contacts)
    .values(
      fresh.map((email) => ({
        accountId: owner.accountId,
        userId: owner.userId,
        email,
        emails: normalizeEmails(email, [{ address: email, type: 'other', source: 'calendar' }]),
        name: people.get(email) ?? null,
        consumerEmail: email,
        source,
      })),
    )
    .returning({ id: contacts.id, email: contacts.email });
  const indexed = await tx
    .insert(contactAddresses)
    .values(rows.map((r) => ({ contactId: r.id, userId: owner.userId, address: r.email })))
    .onConflictDoNothing()
    .returning({ contactId: contactAddresses.contactId });
  // An address another transaction gave a contact meanwhile: that contact stands, this one goes.
  const kept = new Set(indexed.map((i) => i.contactId));
  const lost = rows.filter((r) => !kept.has(r.id)).map((r) => r.id);
  if (lost.length) await tx.delete(contacts).where(inArray(contacts.id, lost));
  return kept.size;
}

/** A contact of the user holding this number (E.164), if any. */
async function holderOf(tx: Tx, userId: string, number: string): Promise<string | null> {
  const [row] = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(
      and(
        eq(contacts.userId, userId),
        sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.phones}) p WHERE regexp_replace(p->>'number', '[^0-9+]', '', 'g') = ${number})`,
      ),
    )
    .limit(1);
  return row?.id ?? null;
}

/** A caller whose number no contact of the user holds becomes one, `source: voice`; returns its id (null when already known). */
export async function learnFromCall(tx: Tx, owner: Owner, number: string): Promise<string | null> {
  // Two calls from one number at once learn it once.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`contact-phone:${owner.userId}:${number}`}, 0))`);
  if (await holderOf(tx, owner.userId, number)) return null;
  const [row] = await tx
    .insert(contacts)
    .values({
      accountId: owner.accountId,
      userId: owner.userId,
      email: '',
      emails: [],
      phones: [{ number, type: 'other', primary: true, source: 'voice' }],
      consumerEmail: null,
      source: { type: 'voice', userId: owner.userId },
    })
    .returning({ id: contacts.id });
  return row!.id;
}
