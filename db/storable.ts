/*
 * The storage boundary (issue 40; docs/security.md, "Input and abuse"): PostgreSQL refuses U+0000
 * in text and jsonb (and `\u0000` in jsonb), and a lone UTF-16 surrogate has no UTF-8 form (a
 * jsonb string with one is refused too). The API refuses both with 400 before any handler runs
 * (server/http/validate.ts); text that comes from outside or from a tool — a file's extracted
 * text, a command's output, a message, a model's words, a provider's error — is stored with each
 * of them replaced by U+FFFD instead, so one byte in someone's content can never fail the write
 * that records it (and with it the task that read it). Every writer of such text calls these.
 */

const SUSPECT = /[\u0000\ud800-\udfff]/;
const BAD = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const REPLACEMENT = '\ufffd';

/** The text as Postgres can store it: NUL and lone surrogates replaced by U+FFFD; anything else unchanged (the common case returns the same string). */
export function storableText(text: string): string {
  return SUSPECT.test(text) ? text.replace(BAD, REPLACEMENT) : text;
}

/** The same for a nullable value. */
export const storableTextOrNull = (text: string | null | undefined): string | null => (text == null ? null : storableText(text));

/**
 * A JSON value as jsonb can store it: every string in it, keys included, made storable. Values
 * that need no change are returned as they are (no copy).
 */
export function storableJson<T>(value: T): T {
  return clean(value, 0) as T;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = clean(value[i], depth + 1);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const key = storableText(k);
    const cleaned = clean(v, depth + 1);
    if (key !== k || cleaned !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      if (key !== k) delete out[k];
      out[key] = cleaned;
    }
  }
  return out ?? value;
}
