/*
 * Which calendars are read (spec 1, `preferences.calendars.read`): the ids listed, or every
 * calendar when the list is empty. Unselected calendars are still kept in sync (choosing one is
 * then instant), but they are not read, shown in free/busy, or fired on.
 */

export function selectedIds(preferences: unknown): string[] {
  const read = (preferences as { calendars?: { read?: unknown } } | null | undefined)?.calendars?.read;
  return Array.isArray(read) ? read.filter((x): x is string => typeof x === 'string') : [];
}

export const isSelected = (selected: string[], calendarId: string) => selected.length === 0 || selected.includes(calendarId);
