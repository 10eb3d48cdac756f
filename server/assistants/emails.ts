import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
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

/**
 * Whether an assistant of any account holds the address. Addresses are unique across the
 * deployment (the database index assistants_email): mail to one must reach exactly one account.
 */
export async function emailTaken(tx: Tx, email: string) {
  const [row] = await tx.select({ id: assistants.id }).from(assistants).where(eq(assistants.email, email.toLowerCase())).limit(1);
  return Boolean(row);
}

/**
 * Free addresses for a name, across the deployment: the plain slug first, then numbered ones, and
 * once those are taken (a popular name over many accounts) the slug with a random suffix.
 */
export async function freeAddresses(tx: Tx, name: string, howMany = 3): Promise<string[]> {
  const base = slugify(name);
  const free: string[] = [];
  const numbered = [base, ...Array.from({ length: 30 }, (_, i) => `${base}${i + 2}`)];
  for (let round = 0; round < 4 && free.length < howMany; round++) {
    const slugs = round === 0 ? numbered : Array.from({ length: howMany * 2 }, () => `${base}.${randomBytes(3).toString('hex')}`);
    const candidates = slugs.map((s) => `${s}@${assistantDomain()}`);
    const taken = new Set((await tx.select({ email: assistants.email }).from(assistants).where(inArray(assistants.email, candidates))).map((r) => r.email));
    for (const c of candidates) if (!taken.has(c) && !free.includes(c) && free.length < howMany) free.push(c);
  }
  return free;
}
