import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, consoleMembers, users, type ConsoleMemberRow, type UserRow } from '@/db/schema';
import { assertOperates, isActor, type AccountOperator } from '@/server/accounts/operator';
import { recordAudit } from '@/server/audit/record';
import { siteOrigin } from '@/server/hosted/origin';
import { conflict, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { sendMail } from '@/server/mail/mailer';
import { createOwnTeam } from '@/server/teams/membership';
import { Email } from '@/server/user-record/contracts';
import { createUserWithEmail } from '@/server/user-record/create';
import { consoleRoles, requireConsoleRole, ROLE_LABELS, type ConsoleRole } from './roles';

/*
 * Console members (spec 6, The console): users of the account with a console role. The operator
 * adds and removes them with the admin CLI (`add-console-member`, `remove-console-member`, as
 * ADMIN_CLI, any account); a console owner does the same from the console's members page (as
 * themself, on their own account only). Every change is an audit event naming who made it.
 *
 * A console member signs in to the hosted app like everyone else, so they must be a user of the
 * account: an address no user holds verified gets one (no organization, their own team, no
 * assistant), exactly as an organization invitation makes one for someone new.
 */

export type ConsoleMember = { id: string; accountId: string; userId: string; email: string; name: string | null; role: ConsoleRole; addedBy: string; createdAt: string };

const present = (m: ConsoleMemberRow, u: Pick<UserRow, 'email' | 'name'>): ConsoleMember => ({
  id: m.id,
  accountId: m.accountId,
  userId: m.userId,
  email: u.email,
  name: u.name,
  role: m.role,
  addedBy: m.addedBy,
  createdAt: m.createdAt.toISOString(),
});

/** The flags' names for the operator, the fields' for the console: a 400 names what the caller typed. */
const fieldNames = (by: AccountOperator) => (isActor(by) ? { email: 'email', role: 'role', member: 'memberId' } : { email: '--email', role: '--role', member: '--email' });

const emailProblem = (email: string | undefined, field: string): FieldProblem[] =>
  email === undefined || Email.safeParse(email).success ? [] : [{ field, problem: 'must be an email address' }];
const roleProblem = (role: string, field: string): FieldProblem[] =>
  (consoleRoles as readonly string[]).includes(role) ? [] : [{ field, problem: `must be one of ${consoleRoles.join(', ')}` }];

/** A console owner acting from the console must be one; the operator may do anything. */
function authorize(by: AccountOperator, accountId: string) {
  assertOperates(by, accountId);
  if (isActor(by)) requireConsoleRole(by, 'owner');
}

/** The account's other owners: a console owner cannot leave the console without one (the operator can). */
async function assertOwnerRemains(tx: Tx, by: AccountOperator, member: ConsoleMemberRow, nextRole: ConsoleRole | null) {
  if (!isActor(by) || member.role !== 'owner' || nextRole === 'owner') return;
  const owners = await tx
    .select({ id: consoleMembers.id })
    .from(consoleMembers)
    .where(and(eq(consoleMembers.accountId, member.accountId), eq(consoleMembers.role, 'owner')));
  if (owners.length <= 1) throw conflict('The console needs at least one owner: make someone else an owner first', {}, 'last_console_owner');
}

/**
 * One account's membership changes, one at a time (a transaction-scoped advisory lock): two owners
 * stepping down at once cannot both pass the last-owner check.
 */
const lockMembership = (tx: Tx, accountId: string) => tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`console_members:${accountId}`}))`);

const isUniqueViolation = (e: unknown) => ((e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code) === '23505';

/**
 * `add-console-member --account ID --email E [--role owner|developer|viewer]` (and the console's
 * "Add member"): makes the user holding the address (created when there is none) a console member
 * with the role, `developer` when none is given. Adding someone who is one already sets their role.
 * Inactive and suspended users are refused (409): they could not sign in.
 */
export async function addConsoleMember(db: Db, by: AccountOperator, input: { accountId: string; email: string; role?: string }) {
  const names = fieldNames(by);
  const role = (input.role ?? 'developer') as ConsoleRole;
  const problems = [...(input.email === undefined || input.email === '' ? [{ field: names.email, problem: 'is required' }] : emailProblem(input.email, names.email)), ...roleProblem(role, names.role)];
  if (problems.length) throw invalidFields(problems);
  const email = Email.parse(input.email);
  authorize(by, input.accountId);
  const attempt = () =>
    db.transaction(async (tx) => {
      await lockMembership(tx, input.accountId);
      const [account] = await tx.select({ id: accounts.id, name: accounts.name, hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, input.accountId));
      if (!account) throw notFound('Account');
      let user = await findUserByVerifiedEmail(tx, account.id, email);
      const userCreated = !user;
      if (!user) {
        user = await createUserWithEmail(tx, { accountId: account.id, email, organizationId: null });
        await createOwnTeam(tx, user, null);
      }
      if (user.status !== 'active') throw conflict('The user is inactive or suspended and could not sign in', {}, 'user_blocked');
      const [existing] = await tx.select().from(consoleMembers).where(and(eq(consoleMembers.accountId, account.id), eq(consoleMembers.userId, user.id))).for('update');
      if (existing?.role === role) return { account, member: present(existing, user), created: false, userCreated };
      if (existing) {
        await assertOwnerRemains(tx, by, existing, role);
        const [changed] = await tx.update(consoleMembers).set({ role }).where(eq(consoleMembers.id, existing.id)).returning();
        await recordAudit(tx, by, 'console_member.role_changed', { type: 'console_member', id: existing.id }, { accountId: account.id, before: { userId: user.id, email: user.email, role: existing.role }, after: { userId: user.id, email: user.email, role } });
        return { account, member: present(changed, user), created: false, userCreated };
      }
      const [row] = await tx
        .insert(consoleMembers)
        .values({ accountId: account.id, userId: user.id, role, addedBy: isActor(by) && by.credential.kind === 'console' ? by.credential.userId : 'admin_cli' })
        .returning();
      await recordAudit(tx, by, 'console_member.added', { type: 'console_member', id: row.id }, { accountId: account.id, after: { userId: user.id, email: user.email, role, userCreated } });
      return { account, member: present(row, user), created: true, userCreated };
    });
  // Two adds of one new address at once: the second finds what the first made.
  const done = await attempt().catch((e) => (isUniqueViolation(e) ? attempt() : Promise.reject(e)));
  if (done.created) {
    const origin = siteOrigin(done.account.hostedDomain).origin;
    await sendMail(db, {
      accountId: done.account.id,
      to: done.member.email,
      subject: `You can now use the ${done.account.name} console`,
      text: `You were made a console member of ${done.account.name} (${ROLE_LABELS[role].toLowerCase()}). Sign in with this email address at ${origin}/sign-in, then open ${origin}/console.`,
    }).catch(() => {});
  }
  return { ok: true as const, member: done.member, created: done.created, userCreated: done.userCreated };
}

async function memberRow(tx: Tx, accountId: string, where: { memberId?: string; email?: string }) {
  if (where.memberId) {
    const [row] = await tx
      .select({ m: consoleMembers, u: users })
      .from(consoleMembers)
      .innerJoin(users, eq(users.id, consoleMembers.userId))
      .where(and(eq(consoleMembers.accountId, accountId), eq(consoleMembers.id, where.memberId)))
      .for('update', { of: consoleMembers });
    return row ?? null;
  }
  const user = where.email ? await findUserByVerifiedEmail(tx, accountId, where.email) : null;
  if (!user) return null;
  const [m] = await tx.select().from(consoleMembers).where(and(eq(consoleMembers.accountId, accountId), eq(consoleMembers.userId, user.id))).for('update');
  return m ? { m, u: user } : null;
}

/**
 * `remove-console-member --account ID --email E` (and the console's "Remove"): the person keeps
 * their user and everything in it, and loses the console at their next request.
 */
export async function removeConsoleMember(db: Db, by: AccountOperator, input: { accountId: string; email?: string; memberId?: string }) {
  const names = fieldNames(by);
  if (!input.email && !input.memberId) throw invalidFields([{ field: names.member, problem: 'is required' }]);
  const problems = emailProblem(input.email || undefined, names.email);
  if (problems.length) throw invalidFields(problems);
  const email = input.email ? Email.parse(input.email) : null;
  authorize(by, input.accountId);
  return db.transaction(async (tx) => {
    await lockMembership(tx, input.accountId);
    const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
    if (!account) throw notFound('Account');
    const found = await memberRow(tx, account.id, { memberId: input.memberId, email: email ?? undefined });
    if (!found) throw notFound('Console member');
    await assertOwnerRemains(tx, by, found.m, null);
    await tx.delete(consoleMembers).where(eq(consoleMembers.id, found.m.id));
    await recordAudit(tx, by, 'console_member.removed', { type: 'console_member', id: found.m.id }, { accountId: account.id, before: { userId: found.u.id, email: found.u.email, role: found.m.role } });
    return { ok: true as const, member: { ...present(found.m, found.u), removed: true as const } };
  });
}

/** The console's role change (owners only): the last owner cannot step down (409 `last_console_owner`). */
export async function setConsoleRole(db: Db, by: AccountOperator, input: { accountId: string; memberId: string; role: string }) {
  const problems = roleProblem(input.role, fieldNames(by).role);
  if (problems.length) throw invalidFields(problems);
  const role = input.role as ConsoleRole;
  authorize(by, input.accountId);
  return db.transaction(async (tx) => {
    await lockMembership(tx, input.accountId);
    const found = await memberRow(tx, input.accountId, { memberId: input.memberId });
    if (!found) throw notFound('Console member');
    if (found.m.role === role) return { ok: true as const, member: present(found.m, found.u) };
    await assertOwnerRemains(tx, by, found.m, role);
    const [changed] = await tx.update(consoleMembers).set({ role }).where(eq(consoleMembers.id, found.m.id)).returning();
    await recordAudit(tx, by, 'console_member.role_changed', { type: 'console_member', id: found.m.id }, { accountId: input.accountId, before: { userId: found.u.id, email: found.u.email, role: found.m.role }, after: { userId: found.u.id, email: found.u.email, role } });
    return { ok: true as const, member: present(changed, found.u) };
  });
}

/** The account's console members, owners first, then by email. Every console role may read it. */
export async function listConsoleMembers(db: Db, by: AccountOperator, accountId: string) {
  assertOperates(by, accountId);
  const rows = await db
    .select({ m: consoleMembers, u: { email: users.email, name: users.name } })
    .from(consoleMembers)
    .innerJoin(users, eq(users.id, consoleMembers.userId))
    .where(eq(consoleMembers.accountId, accountId))
    .orderBy(sql`array_position(array['owner','developer','viewer']::text[], ${consoleMembers.role})`, asc(users.email));
  return { ok: true as const, members: rows.map((r) => present(r.m, r.u)) };
}

/** The signed-in user's console membership of their account, or null: read on every console request, so a removal takes effect at once. */
export async function consoleMembership(db: Db, accountId: string, userId: string): Promise<ConsoleMemberRow | null> {
  const [row] = await db.select().from(consoleMembers).where(and(eq(consoleMembers.accountId, accountId), eq(consoleMembers.userId, userId))).limit(1);
  return row ?? null;
}
