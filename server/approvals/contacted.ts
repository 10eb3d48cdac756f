import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { cartDispatchVersions, carts, contacts } from '@/db/schema';

/*
 * A contact's lastContactedAt (spec 6, Replies on every channel): set when a dispatch to them is
 * executed, that is when its provider took it. The people are the dispatch's recipients (to, cc,
 * bcc: an email address, or a phone number for a text or a call) among the cart owner's own
 * contacts, matched on any address or number the contact holds.
 */
/** Phone numbers are written freely ("+1 (415) 555-0100"): compared by their digits and leading plus. */
const phoneDigits = (s: string) => s.replace(/[^\d+]/g, '');

export async function markContacted(db: Db, cartId: string, versionId: string, at = new Date()): Promise<number> {
  const [row] = await db
    .select({ accountId: carts.accountId, userId: carts.userId, content: cartDispatchVersions.content })
    .from(cartDispatchVersions)
    .innerJoin(carts, eq(carts.id, cartId))
    .where(eq(cartDispatchVersions.id, versionId));
  if (!row?.content) return 0;
  const people = [...row.content.to, ...row.content.cc, ...row.content.bcc].map((p) => p.trim()).filter(Boolean);
  const emails = [...new Set(people.filter((p) => p.includes('@')).map((p) => (/<([^<>\s]+)>/.exec(p)?.[1] ?? p).toLowerCase()))];
  const phones = [...new Set(people.filter((p) => !p.includes('@')).map(phoneDigits).filter((p) => p.length >= 3))];
  if (!emails.length && !phones.length) return 0;
  const emailList = sql`ARRAY[${sql.join(emails.length ? emails.map((e) => sql`${e}`) : [sql`NULL`], sql`, `)}]::text[]`;
  const phoneList = sql`ARRAY[${sql.join(phones.length ? phones.map((p) => sql`${p}`) : [sql`NULL`], sql`, `)}]::text[]`;
  const changed = await db
    .update(contacts)
    .set({ lastContactedAt: at })
    .where(
      and(
        eq(contacts.accountId, row.accountId),
        eq(contacts.userId, row.userId),
        sql`(
          lower(${contacts.email}) = ANY(${emailList})
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.emails}) a WHERE lower(a->>'address') = ANY(${emailList}))
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.phones}) p WHERE regexp_replace(p->>'number', '[^0-9+]', '', 'g') = ANY(${phoneList}))
        )`,
        sql`(${contacts.lastContactedAt} IS NULL OR ${contacts.lastContactedAt} < ${at})`,
      ),
    )
    .returning({ id: contacts.id });
  return changed.length;
}
