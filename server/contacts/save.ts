import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { contactAddresses, contacts, type ContactRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { Email } from '@/server/user-record/contracts';
import { relate } from './relationships';
import { createContact, updateContact } from './service';

/*
 * The agent's way to keep the user's contacts (save_contact): one contact by its address,
 * created when the user has none with it, otherwise only the fields given change; then its
 * relationships to other contacts of the user, named by their addresses. Everything through the
 * same services as the API, as the user.
 */

export const SaveContactInput = z.object({
  email: Email,
  name: z.string().trim().min(1).max(500).optional(),
  title: z.string().trim().max(500).optional(),
  company: z.string().trim().min(1).max(300).optional(),
  phone: z.string().trim().min(3).max(50).optional(),
  relationships: z
    .array(z.object({ email: Email, type: z.string().trim().min(1, 'is required').max(100) }))
    .max(20)
    .optional(),
});
export type SaveContactInput = z.infer<typeof SaveContactInput>;

/** The user's contact holding this address, if any. */
async function contactByAddress(tx: Tx, userId: string, address: string): Promise<ContactRow | null> {
  const [row] = await tx
    .select({ c: contacts })
    .from(contactAddresses)
    .innerJoin(contacts, eq(contacts.id, contactAddresses.contactId))
    .where(and(eq(contactAddresses.userId, userId), eq(contactAddresses.address, address.toLowerCase())))
    .limit(1);
  return row?.c ?? null;
}

type Phone = { number: string; type: 'work' | 'mobile' | 'home' | 'other'; primary: boolean; source: string | null };

function withPhone(existing: ContactRow | null, number: string): Phone[] {
  const current = (existing?.phones ?? []) as Phone[];
  if (current.some((p) => String(p.number).replace(/\s/g, '') === number.replace(/\s/g, ''))) return current;
  return [...current, { number, type: 'mobile', primary: current.length === 0, source: 'assistant' }];
}

export async function saveContactAs(db: Db, actor: Actor, input: SaveContactInput) {
  const user = requireUser(actor);
  const existing = await contactByAddress(db, user.id, input.email);
  const fields = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.company !== undefined ? { company: { id: null, name: input.company, slug: null, domain: null } } : {}),
    // A new number joins the contact's numbers (primary when it has none); the others stay.
    ...(input.phone !== undefined ? { phones: withPhone(existing, input.phone) } : {}),
  };
  const saved = existing
    ? (await updateContact(db, actor, existing.id, fields)).contact
    : (await createContact(db, actor, { email: input.email, ...fields, source: { type: 'other', userId: user.id } })).contact;
  const related: Array<{ email: string; type: string; contactId: string }> = [];
  const unknown: string[] = [];
  if (input.relationships?.length) {
    const [from] = await db.select().from(contacts).where(eq(contacts.id, saved.id));
    const targets = await db
      .select({ address: contactAddresses.address, c: contacts })
      .from(contactAddresses)
      .innerJoin(contacts, eq(contacts.id, contactAddresses.contactId))
      .where(and(eq(contactAddresses.userId, user.id), inArray(contactAddresses.address, input.relationships.map((r) => r.email.toLowerCase()))));
    const byAddress = new Map(targets.map((t) => [t.address, t.c]));
    for (const r of input.relationships) {
      const to = byAddress.get(r.email.toLowerCase());
      if (!to) {
        unknown.push(r.email);
        continue;
      }
      await db.transaction((tx) => relate(tx, from, to, r.type));
      related.push({ email: r.email.toLowerCase(), type: r.type, contactId: to.id });
    }
  }
  return { contact: saved, created: !existing, related, unknown };
}
