/** A case-insensitive substring pattern for ILIKE, with the user's %, _ and \ taken literally. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
