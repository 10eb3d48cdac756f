/*
 * How often the hosted app reads again what changes without the person doing anything (the
 * README documents these): the home list while it is on screen, the count in the navigation on
 * every page. Both pause while the tab is hidden and read at once when it is shown again.
 */
export const NEEDS_ME_POLL_MS = 5_000;
export const NAV_COUNT_POLL_MS = 15_000;
/** The home list tells the navigation its fresh count with this window event (no second request). */
export const NEEDS_ME_EVENT = 'steward:needs-me';
