import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { contactAddresses, contacts } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { AppError } from '@/server/http/errors';
import type { BulkImportBody, BulkImportRow } from './contracts';
import { indexAddresses, normalizeEmails } from './service';

type Row = z.infer<typeof BulkImportRow>;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function rowFields(row: Row) {
  const phones = row.phones ?? (row.phone ? [{ number: row.phone, type: 'mobile', primary: true, source: null }] : undefined);
  return {
    ...changedFields({
      name: row.name,
      preferredName: row.preferredName,
      phones,
      company: row.company,
      title: row.title,
      timezone: row.timezone,
      properties: row.properties,
      tags: row.tags,
    }),
  };
}

/**
 * Imports up to 1,000 rows: each is matched to an existing contact by any of its
 * addresses (updated with the fields sent) or created. Rows without a valid email, or
 * with an address an earlier row of the batch already used, are skipped and listed.
 */
export async function bulkImport(db: Db, actor: Actor, input: z.infer<typeof BulkImportBody>) {
  const userId = requireUser(actor).id;
  const result = { success: true, total: input.contacts.length, created: 0, updated: 0, skipped: 0, errors: [] as Array<{ index: number; email: string | null; error: string }> };
  const seen = new Set<string>();
  const skip = (index: number, email: string | null, error: string) => {
    result.skipped++;
    result.errors.push({ index, email, error });
  };

  for (const [index, row] of input.contacts.entries()) {
    const email = row.email?.trim().toLowerCase() ?? '';
    if (!email) {
      skip(index, null, 'email is required');
      continue;
    }
    if (!EMAIL.test(email)) {
      skip(index, email, 'email is not an email address');
      continue;
    }
    const addresses = [...new Set([email, ...(row.emails ?? []).map((e) => e.address.toLowerCase())])];
    const repeated = addresses.find((a) => seen.has(a));
    if (repeated) {
      skip(index, email, `address ${repeated} is already in this batch`);
      continue;
    }
    addresses.forEach((a) => seen.add(a));
    try {
      await db.transaction(async (tx) => {
        const matches = await tx
          .selectDistinct({ contactId: contactAddresses.contactId })
          .from(contactAddresses)
          .where(and(eq(contactAddresses.userId, userId), inArray(contactAddresses.address, addresses)));
        if (matches.length > 1) throw new AppError(400, 'bad_request', 'its addresses belong to more than one existing contact');
        if (matches.length === 1) {
          const [current] = await tx.select().from(contacts).where(eq(contacts.id, matches[0].contactId));
          const emails = row.emails ? normalizeEmails(current.email, [...current.emails, ...row.emails, { address: email }]) : undefined;
          const [updated] = await tx
            .update(contacts)
            .set({ ...rowFields(row), ...(emails ? { emails } : {}) })
            .where(eq(contacts.id, current.id))
            .returning();
          if (emails) await indexAddresses(tx, updated);
          result.updated++;
        } else {
          const [created] = await tx
            .insert(contacts)
            .values({
              accountId: actor.accountId,
              userId,
              email,
              emails: normalizeEmails(email, row.emails),
              consumerEmail: email,
              source: { type: 'imported', userId },
              ...rowFields(row),
            })
            .returning();
          await indexAddresses(tx, created);
          result.created++;
        }
      });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      skip(index, email, e.message);
    }
  }
  result.success = result.errors.length === 0;
  return { ok: true as const, bulkImport: result };
}
