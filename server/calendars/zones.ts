/*
 * Wall-clock times in IANA zones, for recurrence expansion and iCalendar times: a series is
 * generated in its zone's wall clock (09:00 stays 09:00 across a DST change) and each occurrence
 * turned into an instant here. A wall time is carried as a Date whose UTC fields are the wall
 * clock's ("floating"), which is the form the rrule library computes in.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether the runtime knows the zone by this name. */
export function isIanaZone(zone: string | null | undefined): zone is string {
  if (!zone) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

const isUtc = (zone: string | null | undefined) => !zone || zone === 'UTC' || zone === 'Etc/UTC' || zone === 'GMT' || zone === 'Z';

/** The wall clock of `zone` at an instant, as a floating Date (its UTC fields are the wall clock's). */
export function toWall(at: Date | number, zone: string | null | undefined): Date {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (isUtc(zone) || !isIanaZone(zone)) return new Date(ms);
  return new Date(ms + offsetAt(zone, ms));
}

/**
 * The zone's offset from UTC at an instant (ms), remembered per zone and quarter hour (every zone
 * changes its offset on a quarter hour): expanding a range converts thousands of times, and the
 * runtime's zone formatter is the slow part of it.
 */
const offsets = new Map<string, number>();
const QUARTER = 900_000;
function offsetAt(zone: string, ms: number): number {
  const key = `${zone}|${Math.floor(ms / QUARTER)}`;
  let o = offsets.get(key);
  if (o === undefined) {
    const at = Math.floor(ms / QUARTER) * QUARTER;
    o = wallOf(at, zone) - at;
    if (offsets.size > 200_000) offsets.clear();
    offsets.set(key, o);
  }
  return o;
}

function wallOf(ms: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/**
 * A floating wall time in `zone` as an instant. A time a DST change skips (02:30 on a spring
 * morning) moves forward by the gap, and an ambiguous one (the repeated hour in autumn) takes its
 * first occurrence, as RFC 5545 (3.3.5) says.
 */
export function fromWall(wall: Date | number, zone: string | null | undefined): Date {
  const w = typeof wall === 'number' ? wall : wall.getTime();
  if (isUtc(zone) || !isIanaZone(zone)) return new Date(w);
  const before = offsetAt(zone, w - 86_400_000);
  const after = offsetAt(zone, w + 86_400_000);
  // The first reading of the wall clock: with the earlier offset when both are valid.
  const early = w - before;
  if (toWall(early, zone).getTime() === w) return new Date(early);
  const late = w - after;
  if (toWall(late, zone).getTime() === w) return new Date(late);
  // In a gap: the instant that follows it, by the offset in force before it.
  return new Date(w - before);
}
