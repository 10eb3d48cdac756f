/**
 * How many items the inbox shows at first and adds with "Show more": the server's first render
 * and the list's own reads use the same page (a plain module, so the server page reads the value,
 * not a client reference). Fifty compact rows are more than two screens.
 */
export const INBOX_PAGE = 50;
