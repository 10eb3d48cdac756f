import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants } from '@/db/schema';

/** The domain of generated assistant addresses (STEWARD_ASSISTANT_EMAIL_DOMAIN). */
export const assistantDomain = () => process.env.STEWARD_ASSISTANT_EMAIL_DOMAIN ?? 'assistants.steward.local';

export const slugify = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 40) || 'assistant';

export async function emailTaken(tx: Tx, accountId: string, email: string) {
  const [row] = await tx.select({ id: assistants.id }).from(assistants).where(and(eq(assistants.accountId, accountId), eq(assistants.email, email)));
  return Boolean(row);
}

/** Free addresses for a name: the plain slug first, then numbered ones. */
export async function freeAddresses(tx: Tx, accountId: string, name: string, howMany = 3): Promise<string[]> {
  const base = slugify(name);
  const candidates = [base, ...Array.from({ length: 30 }, (_, i) => `${base}${i + 2}`)].map((s) => `${s}@${assistantDomain()}`);
  const taken = new Set(
    (await tx.select({ email: assistants.email }).from(assistants).where(and(eq(assistants.accountId, accountId), inArray(assistants.email, candidates)))).map((r) => r.email),
  );
  return candidates.filter((c) => !taken.has(c)).slice(0, howMany);
}
