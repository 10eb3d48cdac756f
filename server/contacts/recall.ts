import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { contacts } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { activeTeamIds } from './team';

/*
 * The contacts a run is about (spec 6, Recall: "a contact named in the task"), for the context
 * that recall assembles (server/agent/runtime/memories.ts). A contact is named when the text
 * holds its full name, its preferred name, its email address, or a first name only one of the
 * user's contacts has; or when it holds a word of the contact's title that at most ROLE_HOLDERS
 * of the user's contacts share ("my dentist" names the one dentist the user knows, "a manager"
 * names nobody when ten contacts are managers). Each named contact also lends recall the words
 * the text did not use for it: its title and company when it was named by name, its names when
 * it was named by its role, so a memory that calls the person the other way is found too.
 * Read as the user: their own contacts and their active teams' shared ones.
 */

const ROLE_HOLDERS = 2;
const MAX_NAMED = 5;

export type NamedContact = {
  id: string;
  name: string | null;
  preferredName: string | null;
  email: string;
  title: string | null;
  company: string | null;
  /** How the text named it. */
  via: 'name' | 'email' | 'role';
  /** The words of it the text did not use (for recall's query). */
  otherWords: string[];
};

type Row = {
  id: string;
  name: string | null;
  preferred_name: string | null;
  email: string;
  title: string | null;
  company: string | null;
  full_name: boolean;
  first_name: string | null;
  by_email: boolean;
  role_words: string[] | null;
};

export async function contactsNamedIn(db: Db, actor: UserActor, text: string, config: string): Promise<NamedContact[]> {
  const body = text.slice(0, 20_000);
  if (!body.trim()) return [];
  const teamIds = await activeTeamIds(db, actor.user.id);
  const seen = sql`c.account_id = ${actor.accountId} AND (c.user_id = ${actor.user.id} OR (c.scope = 'team' AND c.team_id = ANY(${sql.param(teamIds)}::text[])))`;
  const { rows } = await db.execute<Row>(sql`
    WITH doc AS MATERIALIZED (
      SELECT to_tsvector('simple', ${body}) AS words, to_tsvector(${config}::regconfig, ${body}) AS stems, lower(${body}) AS lowered
    ),
    candidates AS (
      SELECT c.id, c.name, c.preferred_name, c.email, c.title, c.company->>'name' AS company,
        (c.name IS NOT NULL AND length(c.name) >= 3 AND doc.words @@ phraseto_tsquery('simple', c.name))
          OR (c.preferred_name IS NOT NULL AND length(c.preferred_name) >= 3 AND doc.words @@ phraseto_tsquery('simple', c.preferred_name)) AS full_name,
        CASE WHEN length(split_part(c.name, ' ', 1)) >= 3 AND doc.words @@ plainto_tsquery('simple', split_part(c.name, ' ', 1)) THEN lower(split_part(c.name, ' ', 1)) END AS first_name,
        (c.email <> '' AND position(lower(c.email) IN doc.lowered) > 0) AS by_email,
        CASE WHEN c.title IS NOT NULL THEN ARRAY(
          SELECT unnest(tsvector_to_array(to_tsvector(${config}::regconfig, c.title))) INTERSECT SELECT unnest(tsvector_to_array(doc.stems))
        ) END AS role_words
      FROM ${contacts} c CROSS JOIN doc
      WHERE ${seen}
    )
    SELECT * FROM candidates
    WHERE full_name OR first_name IS NOT NULL OR by_email OR cardinality(role_words) > 0
    LIMIT 200
  `);
  // How many contacts answer to each first name and each role word: only a word that picks out one person (or two) names them.
  const firstNames = countBy(rows.flatMap((r) => (r.first_name ? [r.first_name] : [])));
  const roles = countBy(rows.flatMap((r) => r.role_words ?? []));
  const named: NamedContact[] = [];
  for (const r of rows) {
    const byName = r.full_name || (r.first_name !== null && firstNames.get(r.first_name) === 1);
    const byRole = (r.role_words ?? []).some((w) => (roles.get(w) ?? 0) <= ROLE_HOLDERS);
    const via = r.by_email ? 'email' : byName ? 'name' : byRole ? 'role' : null;
    if (!via) continue;
    const otherWords = via === 'role' ? [r.name, r.preferred_name].filter((w): w is string => Boolean(w)) : [r.title, r.company].filter((w): w is string => Boolean(w));
    named.push({ id: r.id, name: r.name, preferredName: r.preferred_name, email: r.email, title: r.title, company: r.company, via, otherWords });
  }
  // Named by name or address before those named by role.
  return named.sort((a, b) => Number(a.via === 'role') - Number(b.via === 'role')).slice(0, MAX_NAMED);
}

function countBy(words: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const w of words) out.set(w, (out.get(w) ?? 0) + 1);
  return out;
}

/** One line of a named contact for the run's context. */
export function contactLine(c: NamedContact): string {
  // A contact learned from a call has no address (email '').
  const name = c.name ?? c.preferredName ?? (c.email || 'someone');
  const role = [c.title, c.company].filter(Boolean).join(', ');
  return `- ${name}${c.preferredName && c.name ? ` ("${c.preferredName}")` : ''}${c.email ? ` <${c.email}>` : ''}${role ? `: ${role}` : ''} [contact ${c.id}]`;
}
