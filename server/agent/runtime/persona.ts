import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { activeMembership } from '@/db/queries/memberships';
import { organizations, type AssistantRow, type UserRow } from '@/db/schema';
import { defaultPreferences, deepMerge } from '@/server/user-record/defaults';

/*
 * What the organization, the team and the assistant's own profile tell the assistant (spec
 * document 1: an organization's and a team's `generalInfo` are "background the assistants
 * know"; the assistant's writing style, signature, signature phrases, tagline and pronouns; the
 * team's branding switches), and the user's reminder preferences (`reminders`, `checkInAfter`).
 * These are the account's and the user's own settings, never outside content: they go into the
 * system message, which only Steward writes.
 */

export type Persona = {
  /** Lines of the system message's "About you" and "Background" sections. */
  lines: string[];
  /** The owner's active team's switches (true when the user has no team: the defaults). */
  branding: { onMessages: boolean; onEvents: boolean };
};

const LEVEL = ['none', 'a little', 'some', 'plenty'] as const;
const level = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 3 ? LEVEL[v] : null);
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** How the assistant writes, in words the model follows. */
function styleLines(a: Pick<AssistantRow, 'writingStyle' | 'signaturePhrases' | 'tagline' | 'pronouns' | 'signature'>): string[] {
  const w = (a.writingStyle ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  const tone = [
    level(w.professionalism) && `professionalism: ${level(w.professionalism)}`,
    level(w.humor) && `humor: ${level(w.humor)}`,
    level(w.emojiUse) && `emoji: ${level(w.emojiUse)}`,
  ].filter(Boolean);
  if (tone.length) out.push(`Your writing style (0-3 scales): ${tone.join(', ')}.`);
  if (text(w.characterInspiration)) out.push(`Your character is inspired by: ${text(w.characterInspiration)}.`);
  if (text(w.externalCommunication)) out.push(`When you write to people outside the user: ${text(w.externalCommunication)}`);
  if (text(w.oneOnOneCommunication)) out.push(`When you talk with the user: ${text(w.oneOnOneCommunication)}`);
  if (a.signaturePhrases?.length) out.push(`Phrases you like to use: ${a.signaturePhrases.map((p) => `“${p}”`).join(', ')}.`);
  if (text(a.tagline)) out.push(`Your tagline: ${text(a.tagline)}.`);
  if (text(a.pronouns)) out.push(`Your pronouns: ${text(a.pronouns)}.`);
  if (text(a.signature)) out.push('Your email signature is added to the emails you send as yourself: do not write one.');
  return out;
}

/** What the user asked of reminders and check-ins. */
function reminderLines(user: Pick<UserRow, 'preferences'>): string[] {
  const prefs = deepMerge(defaultPreferences(), user.preferences);
  const out: string[] = [];
  const reminders = { 'all-events': 'every calendar event', 'svc-events': 'only the events you created', none: 'no calendar events' }[prefs.reminders.level];
  out.push(`Reminders: the user wants reminders for ${reminders}${prefs.reminders.smartReminders ? ', timed sensibly' : ''}.`);
  if (prefs.checkInAfter > 0) out.push(`When you wait on the user, check in with them after ${prefs.checkInAfter} hours without an answer (set your follow-up no later than that).`);
  return out;
}

/** The persona of one run or turn: the assistant's profile, the organization's and team's background, the branding and the reminders. */
export async function personaFor(db: Db | Tx, assistant: AssistantRow | null, user: UserRow): Promise<Persona> {
  const [membership, [org]] = await Promise.all([
    activeMembership(db as Tx, user.id),
    user.organizationId ? db.select({ name: organizations.name, generalInfo: organizations.generalInfo }).from(organizations).where(eq(organizations.id, user.organizationId)) : [],
  ]);
  const team = membership?.t ?? null;
  const lines = [...(assistant ? styleLines(assistant) : []), ...reminderLines(user)];
  if (org && text(org.generalInfo)) lines.push(`Background from ${org.name} (the user's organization): ${text(org.generalInfo)}`);
  if (team && text(team.generalInfo)) lines.push(`Background from the user's team ${team.name}: ${text(team.generalInfo)}`);
  const branding = { onMessages: team?.brandingOnMessages ?? true, onEvents: team?.brandingOnEvents ?? true };
  if (branding.onMessages) lines.push('Messages you send to others say, at their end, that they come from you as the user’s AI assistant (Steward adds that line).');
  return { lines, branding };
}
