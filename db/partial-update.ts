/**
 * The fields of a partial update that carry a value, or null when nothing is to change.
 *
 * Drizzle refuses an empty SET ("No values to set"), and a request that names no known
 * field (`{}`, or only unknown keys that validation dropped) must not bump `updatedAt`
 * either: on null the caller answers with the row as it is.
 */
export function changedFields<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } | null {
  const defined = Object.entries(fields).filter(([, v]) => v !== undefined);
  return defined.length ? (Object.fromEntries(defined) as { [K in keyof T]?: Exclude<T[K], undefined> }) : null;
}
