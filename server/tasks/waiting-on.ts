import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { contacts, tasks, type TaskRow, type WaitingOnContact } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { listContacts } from '@/server/contacts/service';
import { readableContact } from '@/server/contacts/team';
import { AppError, invalidFields } from '@/server/http/errors';
import { ENDED_STATUSES } from './ended';

/*
 * The people a task waits on (wait_for_reply, spec 6: Replies on every channel), and who among
 * them a proven sender is. An entry names a person by one handle: an email address, a phone number
 * in E.164, a Slack, Teams or Telegram user id, or a contact of the owner, which stands for every
 * email and phone that contact holds when the reply comes (read afresh, so a number added later
 * counts too). A sender matches only through handles its channel proved: the channel layer hands
 * them over (messaging/awaited-replies.ts, tasks/inbound-reply.ts), never a name or a claim.
 */

export const MAX_WAITED = 20;
const E164 = /^\+[1-9]\d{6,14}$/;
/** One page of the contacts service holds every candidate an address search finds in practice. */
const CANDIDATES = 100;

const Id = (what: string) => z.string().trim().min(1, `must name a ${what}`).max(100);

/** One entry of wait_for_reply's contacts[]. */
export const WaitEntry = z.union(
  [
    z.email().max(320),
    z.string().trim().regex(E164),
    z.strictObject({ contactId: Id('contact') }),
    z.strictObject({ slackUserId: Id('Slack user').regex(/^[UW][A-Z0-9]{2,}$/, 'must be a Slack user id (U… or W…)') }),
    z.strictObject({ teamsUserId: Id('Teams user') }),
    z.strictObject({ telegramUserId: Id('Telegram user').regex(/^\d{1,20}$/, 'must be a Telegram user id (digits)') }),
  ],
  { error: 'must be an email address, a phone number in E.164 (+15551234567), or {contactId}, {slackUserId}, {teamsUserId} or {telegramUserId}' },
);
export type WaitEntry = z.infer<typeof WaitEntry>;

export const WaitEntries = z
  .array(WaitEntry)
  .min(1, 'must name at least one person')
  .max(MAX_WAITED, `must name at most ${MAX_WAITED} people`);

/** Handles a channel proved the sender holds (lower-cased email, E.164 phone, provider user ids). */
export type ProvenHandles = {
  email?: string | null;
  phone?: string | null;
  slackUserId?: string | null;
  teamsUserId?: string | null;
  telegramUserId?: string | null;
};

const lower = (s: string | null | undefined) => s?.trim().toLowerCase() || null;
/** Phone numbers in contacts are written freely ("+1 (415) 555-0100"): compared by their digits and leading plus. */
export const phoneDigits = (s: string) => s.replace(/[^\d+]/g, '');

const emailsOf = (c: { email: string; emails: Array<Record<string, unknown>> }) => [c.email, ...c.emails.map((e) => String(e.address ?? ''))].map((a) => a.trim().toLowerCase()).filter(Boolean);
const phonesOf = (c: { phones: Array<Record<string, unknown>> }) => c.phones.map((p) => phoneDigits(String(p.number ?? ''))).filter(Boolean);
const nameOf = (c: { name: string | null; preferredName: string | null }) => c.name ?? c.preferredName ?? null;

const blank = (over: Partial<WaitingOnContact>): WaitingOnContact => ({ email: null, name: null, contactId: null, ...over });

/** A key per person, so the same handle named twice is waited on once. */
function keyOf(e: WaitingOnContact): string {
  if (e.contactId && !e.email && !e.phone) return `c:${e.contactId}`;
  return e.email ? `e:${e.email}` : e.phone ? `p:${e.phone}` : e.slackUserId ? `s:${e.slackUserId}` : e.teamsUserId ? `t:${e.teamsUserId}` : e.telegramUserId ? `g:${e.telegramUserId}` : `c:${e.contactId}`;
}

/**
 * Each entry as the owner knows it, read through the contacts service as the owner (another
 * user's contact is never named): an address or number one of their contacts holds gets its id and
 * name; a contact id the owner cannot read is an error naming the entry.
 */
export async function resolveWaitingOn(db: Db, actor: UserActor, entries: WaitEntry[]): Promise<WaitingOnContact[]> {
  const out = new Map<string, WaitingOnContact>();
  for (const [i, entry] of entries.entries()) {
    let resolved: WaitingOnContact;
    if (typeof entry === 'string' && entry.includes('@')) {
      const email = entry.trim().toLowerCase();
      const { contacts: found } = await listContacts(db, actor, { q: email, page: 1, perPage: CANDIDATES });
      const match = found.find((c) => emailsOf(c).includes(email));
      resolved = blank({ email, name: match ? nameOf(match) : null, contactId: match?.id ?? null });
    } else if (typeof entry === 'string') {
      const phone = entry.trim();
      const [match] = await db
        .select({ id: contacts.id, name: contacts.name, preferredName: contacts.preferredName })
        .from(contacts)
        .where(
          and(
            eq(contacts.accountId, actor.accountId),
            eq(contacts.userId, actor.user.id),
            sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.phones}) p WHERE regexp_replace(p->>'number', '[^0-9+]', '', 'g') = ${phone})`,
          ),
        )
        .limit(1);
      resolved = blank({ phone, name: match ? nameOf(match) : null, contactId: match?.id ?? null });
    } else if ('contactId' in entry) {
      const c = await readableContact(db, actor, entry.contactId).catch((e: unknown) => {
        if (e instanceof AppError && e.status === 404) throw invalidFields([{ field: `contacts.${i}.contactId`, problem: 'no such contact of the user' }]);
        throw e;
      });
      resolved = blank({ contactId: c.id, name: nameOf(c), email: c.email.toLowerCase() || null, phone: phonesOf(c)[0] ?? null });
      // A contact stands for all of its handles: keyed by its id, not by the first address shown.
      out.set(`c:${c.id}`, resolved);
      continue;
    } else {
      resolved = blank(entry);
    }
    const key = keyOf(resolved);
    if (!out.has(key)) out.set(key, resolved);
  }
  return [...out.values()];
}

/** How an entry reads to a person: its name, then its handle. */
export function describeWaited(e: WaitingOnContact): string {
  const handle = e.email ?? e.phone ?? (e.slackUserId ? `Slack ${e.slackUserId}` : e.teamsUserId ? `Teams ${e.teamsUserId}` : e.telegramUserId ? `Telegram ${e.telegramUserId}` : 'a contact');
  return e.name ? `${e.name} <${handle}>` : handle;
}

/** Whether an entry names the sender by a handle it holds itself (a contact's other handles are read by awaits()). */
export function namesSender(e: WaitingOnContact, h: ProvenHandles): boolean {
  return Boolean(
    (h.email && lower(e.email) === lower(h.email)) ||
      (h.phone && e.phone && phoneDigits(e.phone) === phoneDigits(h.phone)) ||
      (h.slackUserId && e.slackUserId === h.slackUserId) ||
      (h.teamsUserId && lower(e.teamsUserId) === lower(h.teamsUserId)) ||
      (h.telegramUserId && e.telegramUserId === h.telegramUserId),
  );
}

const hasHandles = (h: ProvenHandles) => Boolean(h.email || h.phone || h.slackUserId || h.teamsUserId || h.telegramUserId);

/** The ids among `contactIds` (of one account) whose contact holds the proven email or phone. */
async function contactsHolding(tx: Db | Tx, accountId: string, contactIds: string[], h: ProvenHandles): Promise<Set<string>> {
  if (!contactIds.length || (!h.email && !h.phone)) return new Set();
  const email = lower(h.email);
  const phone = h.phone ? phoneDigits(h.phone) : null;
  const rows = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(
      and(
        eq(contacts.accountId, accountId),
        inArray(contacts.id, contactIds),
        sql`(
          (${email}::text IS NOT NULL AND (lower(${contacts.email}) = ${email} OR EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.emails}) a WHERE lower(a->>'address') = ${email})))
          OR (${phone}::text IS NOT NULL AND EXISTS (SELECT 1 FROM jsonb_array_elements(${contacts.phones}) p WHERE regexp_replace(p->>'number', '[^0-9+]', '', 'g') = ${phone}))
        )`,
      ),
    );
  return new Set(rows.map((r) => r.id));
}

/** Whether the task waits on the proven sender: by a handle an entry holds, or through a contact that holds it now. */
export async function awaits(tx: Db | Tx, task: Pick<TaskRow, 'accountId' | 'waitingOnContacts'>, h: ProvenHandles): Promise<boolean> {
  if (!hasHandles(h) || !task.waitingOnContacts.length) return false;
  if (task.waitingOnContacts.some((e) => namesSender(e, h))) return true;
  const ids = task.waitingOnContacts.map((e) => e.contactId).filter((id): id is string => Boolean(id));
  return (await contactsHolding(tx, task.accountId, ids, h)).size > 0;
}

/** The statuses a task keeps whom it waits on in (tasks/move.ts): waiting, and woken until its run moves on. */
const WAITING_STATUSES: TaskRow['status'][] = ['awaiting_non_user_response', 'pending', 'executing'];

/** At most this many tasks take one message: a person answering several waits at once reaches each, a flood does not fan out. */
export const MAX_WOKEN = 10;

/**
 * The open tasks that wait on the proven sender, locked, most recently changed first, within the
 * scope the channel reached: the tasks of one assistant (its own number, bot or app), or every
 * task of the account (a deployment-wide bot that answers for every assistant). The owner of a
 * task is never "someone it waits on": `exceptUserId` leaves the sender's own tasks out.
 */
export async function tasksAwaiting(tx: Tx, scope: { accountId: string; assistantId: string | null; exceptUserId?: string | null }, h: ProvenHandles): Promise<TaskRow[]> {
  if (!hasHandles(h)) return [];
  const candidates = await tx
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.accountId, scope.accountId),
        scope.assistantId ? eq(tasks.assistantId, scope.assistantId) : undefined,
        scope.exceptUserId ? sql`${tasks.userId} <> ${scope.exceptUserId}` : undefined,
        sql`${tasks.waitingOnContacts} <> '[]'::jsonb`,
        inArray(tasks.status, WAITING_STATUSES),
      ),
    )
    .orderBy(sql`${tasks.updatedAt} DESC`)
    .limit(100);
  const out: TaskRow[] = [];
  for (const t of candidates) {
    if (out.length >= MAX_WOKEN) break;
    if (!(await awaits(tx, t, h))) continue;
    const [locked] = await tx.select().from(tasks).where(eq(tasks.id, t.id)).for('update');
    // Still waiting on them once locked (a concurrent move may have ended the wait).
    if (locked && locked.waitingOnContacts.length && !(ENDED_STATUSES as readonly string[]).includes(locked.status)) out.push(locked);
  }
  return out;
}
