/*
 * The wire model of the Graph calendar stand-in (graph-calendar-fake.ts): an event as Graph answers
 * it, what the stand-in keeps per account, Graph's forms of a time, and the opaque delta tokens it
 * hands out (base64url JSON of where the round stands).
 */

export type DateTimeTz = { dateTime: string; timeZone: string };
export type GraphEvent = {
  '@odata.etag': string;
  id: string;
  changeKey: string;
  iCalUId: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  subject: string | null;
  bodyPreview: string;
  body: { contentType: 'text' | 'html'; content: string };
  start: DateTimeTz;
  end: DateTimeTz;
  originalStartTimeZone: string;
  originalEndTimeZone: string;
  isAllDay: boolean;
  isCancelled: boolean;
  isOrganizer: boolean;
  showAs: string;
  type: 'singleInstance' | 'occurrence' | 'exception';
  seriesMasterId: string | null;
  originalStart?: string;
  location: { displayName: string };
  attendees: Array<{ type: string; status: { response: string; time: string }; emailAddress: { name: string; address: string } }>;
  organizer: { emailAddress: { name: string; address: string } };
  transactionId: string | null;
  isOnlineMeeting: boolean;
  webLink: string;
};
export type Stored = { event: GraphEvent; calendarId: string; start: number; end: number; seq: number; deleted: boolean; ext: Record<string, string> };
export type Calendar = { id: string; name: string; hexColor: string; isDefaultCalendar: boolean; canEdit: boolean; tokenFloor: number };
export type Account = { address: string; calendars: Map<string, Calendar>; events: Map<string, Stored> };


/** Graph's own form of a UTC time: no offset, seven fractional digits. */
export const graphTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$10000');

/** The instant a Graph {dateTime, timeZone} names: UTC or an IANA zone (Windows zone names are not understood here: 400). */
export function instantOf(d: DateTimeTz | undefined): number | null {
  if (!d || typeof d.dateTime !== 'string') return null;
  const wall = Date.parse(`${d.dateTime.replace(/Z$/, '').slice(0, 23)}Z`);
  if (Number.isNaN(wall)) return null;
  const tz = d.timeZone ?? 'UTC';
  if (tz === 'UTC' || tz === 'Etc/UTC') return wall;
  let offset: number;
  try {
    // The zone's offset at that wall time, read twice so a time near a DST change lands right.
    const at = (ms: number) => {
      const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(ms).map((p) => [p.type, p.value]));
      return Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second) - ms;
    };
    offset = at(wall - at(wall));
  } catch {
    return null;
  }
  return wall - offset;
}

export const token = (o: Record<string, unknown>) => Buffer.from(JSON.stringify(o)).toString('base64url');
export const untoken = <T>(t: string): T | null => {
  try {
    return JSON.parse(Buffer.from(t, 'base64url').toString('utf8')) as T;
  } catch {
    return null;
  }
};
export type DeltaState = { c: string; s: number; a: number; b: number; since: number; o?: number };
