import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { BROWSER_SKILL, skills, type SkillRow } from '@/db/schema/skills';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { AppError, forbidden } from '@/server/http/errors';
import { namedIn } from './skill-context';

/*
 * The browser skill (spec document 2, Workspace controls: "browser automation also needs the
 * browser skill installed on the account"). One per account, account-wide, installed at the
 * account's creation (server/accounts/service.ts) and by migration 0061 for the accounts before
 * it; the account key removes it (DELETE /skills/{id}) and installs it again (POST /skills
 * {kind: 'browser'}). Without it (or with it disabled) the agent's browser tools refuse; the
 * person's own use of the workspace (handoffs, the live view, cleanup) does not depend on it.
 */

/** The account's browser skill, enabled or not, or null. */
export async function browserSkillOf(db: Tx, accountId: string): Promise<SkillRow | null> {
  const [row] = await db
    .select()
    .from(skills)
    .where(and(eq(skills.accountId, accountId), eq(skills.kind, 'browser')))
    .limit(1);
  return row ?? null;
}

/** Whether the account's agents may use the workspace browser: its browser skill is installed and enabled. */
export async function browserSkillInstalled(db: Tx, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: skills.id })
    .from(skills)
    .where(and(eq(skills.accountId, accountId), eq(skills.kind, 'browser'), eq(skills.enabled, true)))
    .limit(1);
  return Boolean(row);
}

/**
 * Whether a task's runs are offered the browser tools: its skills[] is empty (every skill), or it
 * names the browser skill, by `browser` or by the account's browser skill's name or id.
 */
export async function taskNamesBrowser(db: Tx, task: { accountId: string; skills: readonly string[] | null }): Promise<boolean> {
  const named = task.skills ?? [];
  if (!named.length) return true;
  const names = namedIn(named);
  if (names({ id: '', name: BROWSER_SKILL.name })) return true;
  const row = await browserSkillOf(db, task.accountId);
  return row !== null && names(row);
}

/**
 * POST /skills {kind: 'browser'}: installs the account's browser skill. Only an account-wide
 * caller (an account key without X-User-Email) installs it; a second call answers the installed
 * one (`created: false`). Its name is `browser`, or `workspace-browser` when an account-wide skill
 * already holds `browser`; 409 when both are taken.
 */
export async function installBrowserSkill(db: Db, actor: Actor): Promise<{ row: SkillRow; created: boolean }> {
  if (!isAccountWide(actor)) {
    throw forbidden(
      'The browser skill is installed for the whole account: use an account key without X-User-Email (a user or organization key cannot install it)',
      'account_key_required',
    );
  }
  const existing = await browserSkillOf(db, actor.accountId);
  if (existing) return { row: existing, created: false };
  for (const name of [BROWSER_SKILL.name, BROWSER_SKILL.fallbackName]) {
    // A conflict is another browser skill made at the same moment (one per account), or the name held by another skill.
    const [row] = await db
      .insert(skills)
      .values({ accountId: actor.accountId, ownerUserId: null, kind: 'browser', name, title: BROWSER_SKILL.title, description: BROWSER_SKILL.description })
      .onConflictDoNothing()
      .returning();
    if (row) return { row, created: true };
    const raced = await browserSkillOf(db, actor.accountId);
    if (raced) return { row: raced, created: false };
  }
  throw new AppError(
    409,
    'skill_name_taken',
    `Account-wide skills named ${BROWSER_SKILL.name} and ${BROWSER_SKILL.fallbackName} already exist: delete one of them, then install the browser skill`,
    { field: 'name' },
  );
}
