import { recordAudit } from '@/server/audit/record';
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { assistants, oauthConnections, organizations, slackApps, teams, users, type AssistantRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import type { CreateAssistantBody, UpdateAssistantBody } from './contracts';
import { assistantDomain, emailTaken, freeAddresses } from './emails';
import { toPublicAssistant, type SlackStatus } from './present';
import { visibleAssistant, visibleToUser } from './access';

/** Profile fields shared by create, update and roster creation, mapped to columns. */
export function profileColumns(input: Partial<z.infer<typeof UpdateAssistantBody>>) {
  const { avatar, name, email, status, ...rest } = input;
  return { ...rest, ...changedFields({ avatarUrl: avatar, name, email, status }) } as Partial<typeof assistants.$inferInsert>;
}

const scopeOrder = sql`CASE ${assistants.scope} WHEN 'account' THEN 0 WHEN 'organization' THEN 1 WHEN 'team' THEN 2 ELSE 3 END`;

/** Account-wide callers see every assistant; a user those their scope lets them see. Sorted by scope and name. */
export async function listAssistants(db: Db, actor: Actor, q: { email?: string; page: number; perPage: number }) {
  const rows = await db
    .select()
    .from(assistants)
    .where(and(eq(assistants.accountId, actor.accountId), isNull(assistants.deletedAt), q.email ? eq(assistants.email, q.email.trim().toLowerCase()) : undefined))
    .orderBy(scopeOrder, asc(assistants.name), asc(assistants.id));
  const visible: AssistantRow[] = [];
  for (const a of rows) if (isAccountWide(actor) || (actor.user && (await visibleToUser(db, actor.user, a)))) visible.push(a);
  const page = visible.slice((q.page - 1) * q.perPage, q.page * q.perPage);
  const slack = await slackStatuses(db, actor, page.map((a) => a.id));
  return { ok: true as const, assistants: page.map((a) => toPublicAssistant(a, { slack: slack.get(a.id) })), page: q.page, perPage: q.perPage, total: visible.length };
}

/** Account-wide credentials without X-User-Email create assistants of any scope. */
export async function createAssistant(db: Db, actor: Actor, input: z.infer<typeof CreateAssistantBody>) {
  if (!isAccountWide(actor)) throw forbidden('Creating assistants needs an account-wide key without X-User-Email; users hire with POST /users/{userId}/assistants');
  const owner = await scopeOwner(db, actor.accountId, input);
  const row = await db.transaction(async (tx) => {
    if (await emailTaken(tx, input.email)) throw badRequest('email: already used by another assistant');
    const [a] = await tx
      .insert(assistants)
      .values({ accountId: actor.accountId, scope: input.scope, ...owner, ...profileColumns(input) } as typeof assistants.$inferInsert)
      .returning();
    await recordAudit(tx, actor, 'assistant.created', { type: 'assistant', id: a.id }, { organizationId: a.organizationId, after: { name: a.name, email: a.email, scope: a.scope, teamId: a.teamId, userId: a.userId } });
    return a;
  });
  return { ok: true as const, assistant: toPublicAssistant(row) };
}

async function scopeOwner(db: Db, accountId: string, input: z.infer<typeof CreateAssistantBody>) {
  const need = (field: string) => badRequest(`${field}: required with scope ${input.scope}`);
  if (input.scope === 'organization') {
    if (!input.organization) throw need('organization');
    const [o] = await db.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, input.organization), eq(organizations.accountId, accountId)));
    if (!o) throw notFound('Organization');
    return { organizationId: o.id, teamId: null, userId: null };
  }
  if (input.scope === 'team') {
    if (!input.team) throw need('team');
    const [t] = await db.select().from(teams).where(and(eq(teams.id, input.team), eq(teams.accountId, accountId)));
    if (!t) throw notFound('Team');
    return { organizationId: t.organizationId, teamId: t.id, userId: null };
  }
  if (input.scope === 'user') {
    if (!input.user) throw need('user');
    const [u] = await db.select().from(users).where(and(eq(users.id, input.user), eq(users.accountId, accountId)));
    if (!u) throw notFound('User');
    return { organizationId: u.organizationId, teamId: null, userId: u.id };
  }
  return { organizationId: null, teamId: null, userId: null };
}

export async function getAssistant(db: Db, actor: Actor, id: string) {
  return { ok: true as const, assistant: toPublicAssistant(await visibleAssistant(db, actor, id)) };
}

/** Account-wide callers change any assistant; a user only their own (scope user). */
async function changeableAssistant(tx: Tx, actor: Actor, id: string) {
  const a = await visibleAssistant(tx, actor, id);
  if (!isAccountWide(actor) && !(a.scope === 'user' && a.userId === actor.user?.id)) throw forbidden('Only account-wide credentials change shared assistants');
  return a;
}

export async function updateAssistant(db: Db, actor: Actor, id: string, input: z.infer<typeof UpdateAssistantBody>) {
  const row = await db.transaction(async (tx) => {
    const a = await changeableAssistant(tx, actor, id);
    if (input.email && input.email !== a.email && (await emailTaken(tx, input.email))) throw badRequest('email: already used by another assistant');
    const set = changedFields(profileColumns(input));
    if (!set) return a;
    const [u] = await tx.update(assistants).set(set).where(eq(assistants.id, a.id)).returning();
    const keys = Object.keys(set) as Array<keyof typeof set & keyof AssistantRow>;
    await recordAudit(tx, actor, 'assistant.updated', { type: 'assistant', id: a.id }, { organizationId: a.organizationId, before: Object.fromEntries(keys.map((k) => [k, a[k]])), after: Object.fromEntries(keys.map((k) => [k, u[k]])) });
    return u;
  });
  return { ok: true as const, assistant: toPublicAssistant(row) };
}

/** Deleting retires the address (kept as retiredEmail, free for reuse) and takes the assistant off every roster. */
export async function retireAssistant(tx: Tx, a: AssistantRow) {
  const now = new Date();
  await tx
    .update(assistants)
    .set({ deletedAt: now, retiredEmail: a.email, email: null, emailReleasedAt: now, status: 'inactive' })
    .where(eq(assistants.id, a.id));
  await tx.execute(sql`DELETE FROM roster_entries WHERE assistant_id = ${a.id}`);
  await tx.update(users).set({ primaryAssistantId: null }).where(eq(users.primaryAssistantId, a.id));
}

export async function deleteAssistant(db: Db, actor: Actor, id: string) {
  await db.transaction(async (tx) => {
    const a = await changeableAssistant(tx, actor, id);
    await retireAssistant(tx, a);
    await recordAudit(tx, actor, 'assistant.deleted', { type: 'assistant', id: a.id }, { organizationId: a.organizationId, before: { name: a.name, email: a.email, scope: a.scope }, after: null });
  });
  return { ok: true as const, assistant: { id, deleted: true as const, message: 'Assistant deleted; its address is retired and mailboxes disconnected' } };
}

export async function checkEmail(db: Db, actor: Actor, slug: string) {
  const email = `${slug}@${assistantDomain()}`;
  return { ok: true as const, available: !(await emailTaken(db, email)), email };
}

export async function generateEmails(db: Db, actor: Actor, name: string) {
  return { ok: true as const, suggestions: await freeAddresses(db, name, 3) };
}

/**
 * Per-user Slack status: configured when the assistant has a Slack app (the account's, or
 * this user's workspace app), connected when this user finished the Slack OAuth for it.
 */
async function slackStatuses(db: Db, actor: Actor, ids: string[]) {
  const out = new Map<string, SlackStatus>();
  if (!ids.length) return out;
  const apps = await db.select().from(slackApps).where(inArray(slackApps.assistantId, ids));
  const links = actor.user
    ? await db.select().from(oauthConnections).where(and(eq(oauthConnections.provider, 'slack'), eq(oauthConnections.userId, actor.user.id), inArray(oauthConnections.assistantId, ids)))
    : [];
  for (const id of ids) {
    const app = apps.find((x) => x.assistantId === id && (x.kind === 'marketplace' || x.userId === actor.user?.id));
    const link = links.find((l) => l.assistantId === id);
    const team = (link?.details.team as { id?: string } | undefined)?.id;
    out.set(id, { configured: Boolean(app), connected: Boolean(link), deepLinks: team ? { app: `https://slack.com/app_redirect?team=${team}&app=${app?.id ?? ''}` } : {} });
  }
  return out;
}
