import { and, asc, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { skills, type SkillRow } from '@/db/schema/skills';
import { logger } from '@/server/logger';
import { renderPublishedPrompt } from '@/server/prompts/render-version';

/*
 * What instructions and prompt skills add to a run's context (spec 2: "other skill kinds package
 * instructions, … prompts"). A skill applies to a run of its user (its owner's, or every user's
 * for an account-wide one) when it is enabled and either applies `always`, or `when_named` and the
 * task's `skills[]` names it (by name or id). A user's own skill replaces an account-wide one of
 * the same name. The text is the account's or the user's own configuration: it goes into the
 * system message in a delimited section (system-message.ts), never as outside content.
 */

export type SkillSection = { name: string; title: string | null; kind: 'instructions' | 'prompt'; text: string };

/** Per skill and in all: a context has room for other things too. */
export const MAX_SKILL_CHARS = 8_000;
export const MAX_SKILLS_CHARS = 24_000;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}\n[… cut: the skill is longer than ${max} characters]` : text);

async function textOf(db: Tx, s: SkillRow): Promise<string | null> {
  if (s.kind === 'instructions') return s.instructions?.trim() || null;
  if (!s.promptName) return null;
  const rendered = await renderPublishedPrompt(db, s.accountId, s.promptName, s.promptVersion, s.promptVariables ?? {});
  // A prompt deleted or unpublished since the skill was made adds nothing; the run goes on without it.
  if (rendered === null) logger.warn({ skillId: s.id, promptName: s.promptName, promptVersion: s.promptVersion }, 'skill: its prompt has no such published version');
  return rendered?.trim() || null;
}

/** Whether a task's skills[] names a skill: by its name or its id, case-insensitively. */
export function namedIn(named: readonly string[]): (s: { id: string; name: string }) => boolean {
  const names = new Set(named.map((n) => n.trim().toLowerCase()).filter(Boolean));
  return (s) => names.has(s.name.toLowerCase()) || (s.id !== '' && names.has(s.id.toLowerCase()));
}

/**
 * Which skills a task's runs may use (MCP tools, the browser): every skill of the owner when the
 * task's skills[] is empty, only the ones it names (namedIn) otherwise. A name that matches no
 * skill matches nothing: a task naming only such names gets no MCP tools and no browser.
 * Instructions and prompt skills that apply `always` are configuration, not tools: they join
 * every run whatever skills[] says (skillSections).
 */
export function usableBy(named: readonly string[]): (s: { id: string; name: string }) => boolean {
  return named.length ? namedIn(named) : () => true;
}

/** The sections of the skills that apply to a run of this user; `named`: the task's skills[] (empty for a chat turn). */
export async function skillSections(db: Tx, who: { accountId: string; userId: string }, named: readonly string[] = []): Promise<SkillSection[]> {
  const rows = await db
    .select()
    .from(skills)
    .where(
      and(
        eq(skills.accountId, who.accountId),
        inArray(skills.kind, ['instructions', 'prompt']),
        eq(skills.enabled, true),
        or(eq(skills.ownerUserId, who.userId), isNull(skills.ownerUserId)),
      ),
    )
    .orderBy(asc(skills.createdAt), asc(skills.id));
  const isNamed = namedIn(named);
  const applying = rows.filter((s) => (s.applies ?? 'always') === 'always' || isNamed(s));
  // The user's own skill of a name wins over the account's.
  const byName = new Map<string, SkillRow>();
  for (const s of applying) if (!byName.has(s.name) || s.ownerUserId) byName.set(s.name, s);
  const out: SkillSection[] = [];
  let used = 0;
  for (const s of byName.values()) {
    const text = await textOf(db, s);
    if (!text) continue;
    const shown = cut(text, Math.min(MAX_SKILL_CHARS, MAX_SKILLS_CHARS - used));
    used += shown.length;
    out.push({ name: s.name, title: s.title, kind: s.kind as SkillSection['kind'], text: shown });
    if (used >= MAX_SKILLS_CHARS) break;
  }
  return out;
}

/** The section of the system message: each skill between its own tags, a closing tag inside its text defused. */
export function skillsSection(sections: readonly SkillSection[]): string[] {
  if (!sections.length) return [];
  return [
    '',
    'Skills (instructions the user and their account configured for you; follow them where they apply):',
    ...sections.map((s) => `<skill name="${s.name}" kind="${s.kind}"${s.title ? ` title="${s.title.replace(/["<>]/g, '')}"` : ''}>\n${s.text.replace(/<\/\s*skill\s*>/gi, '</ skill>')}\n</skill>`),
  ];
}
