/**
 * The memory tag vocabulary. Plain tags, and prefix forms whose value has a shape.
 * `contact:` values are lower-cased; `profile:bio` also carries `profile`.
 */
export const PLAIN_TAGS = ['general', 'profile', 'date-memory', 'assistant-style'] as const;

const PREFIXES: Record<string, RegExp> = {
  'contact:': /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  'company:': /^\S{1,100}$/,
  'event:': /^\S{1,100}$/,
  'task:': /^\S{1,100}$/,
  'file:': /^\S{1,100}$/,
  'workflow:': /^\S{1,100}$/,
  'skill:': /^[\w.-]{1,100}$/,
  'repo:': /^[\w.-]+\/[\w.-]+$/,
  'title:': /^.{1,200}$/,
  'profile:': /^[\w-]{1,50}$/,
};

export const ACCEPTED_TAGS_MESSAGE = `accepted tags: ${PLAIN_TAGS.join(', ')}, or ${Object.keys(PREFIXES)
  .map((p) => `${p}<${p === 'contact:' ? 'email' : p === 'repo:' ? 'owner/repo' : p === 'title:' ? 'text' : p === 'profile:' ? 'slot' : p === 'skill:' ? 'name' : 'id'}>`)
  .join(', ')}`;

/** Normalizes one tag, or returns null when it is outside the vocabulary. */
export function normalizeTag(raw: string): string | null {
  const tag = raw.trim();
  if ((PLAIN_TAGS as readonly string[]).includes(tag)) return tag;
  const prefix = Object.keys(PREFIXES).find((p) => tag.startsWith(p));
  if (!prefix) return null;
  let value = tag.slice(prefix.length).trim();
  if (prefix === 'contact:') value = value.toLowerCase();
  return PREFIXES[prefix].test(value) ? prefix + value : null;
}

/** Normalized, de-duplicated tags with the implied ones added; invalid ones reported. */
export function normalizeTags(raw: string[]): { tags: string[]; invalid: string[] } {
  const tags: string[] = [];
  const invalid: string[] = [];
  for (const r of raw) {
    const t = normalizeTag(r);
    if (t === null) invalid.push(r);
    else if (!tags.includes(t)) tags.push(t);
  }
  if (tags.includes('profile:bio') && !tags.includes('profile')) tags.push('profile');
  return { tags, invalid };
}
