import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { contacts } from '@/db/schema';

/**
 * The `priority` of the user's own contacts among these ids (spec 2, Contact): the agent orders
 * the people it follows up with by it, higher first. Ids that are not the user's contacts are
 * left out (they count as 0).
 */
export async function contactPriorities(db: Db, userId: string, contactIds: string[]): Promise<Map<string, number>> {
  const ids = [...new Set(contactIds)];
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: contacts.id, priority: contacts.priority })
    .from(contacts)
    .where(and(eq(contacts.userId, userId), inArray(contacts.id, ids)));
  return new Map(rows.map((r) => [r.id, r.priority]));
}

/** The people in order of their contact's priority, higher first; equal ones keep their order. */
export function byPriority<T extends { contactId?: string | null }>(people: readonly T[], priorities: ReadonlyMap<string, number>): T[] {
  const of = (p: T) => (p.contactId ? (priorities.get(p.contactId) ?? 0) : 0);
  return people
    .map((p, i) => ({ p, i }))
    .sort((a, b) => of(b.p) - of(a.p) || a.i - b.i)
    .map((x) => x.p);
}
