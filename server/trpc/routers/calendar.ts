import { z } from 'zod';
import { ZodError } from 'zod';
import { gmailSettings } from '@/server/channels/gmail/config';
import { graphSettings } from '@/server/channels/graph/config';
import { availability } from '@/server/calendars/availability';
import { chooseCalendars, ChooseCalendarsBody } from '@/server/calendars/choose';
import { connectCaldav, deleteConnection, listConnections } from '@/server/calendars/connections';
import { CalendarConnectionParams, ConnectCalendarBody, EventsQuery, FreeBusyQuery } from '@/server/calendars/contracts';
import { listEvents, listUserCalendars, presentOccurrence } from '@/server/calendars/read';
import { AppError, type FieldProblem } from '@/server/http/errors';
import { router, userProcedure } from '../init';

/*
 * The hosted Calendar page: the person's connections and calendars, connecting a CalDAV server,
 * choosing the calendars read, disconnecting, the agenda and today's free/busy — the same
 * services as /calendar-connections, /calendars, /calendar/events and /calendar/free-busy, with
 * the signed-in person as the actor. Google and Microsoft connect through the hosted OAuth link
 * (GET /api/oauth/calendar/connect), which the page links to when the deployment offers them.
 */

/** The CalDAV form as typed: checked against the API's own body inside, so each problem can name its field. */
const CaldavForm = z.object({ url: z.string().max(4000), username: z.string().max(1000), password: z.string().max(2000) });

/** What an empty field is told (the API's own words are for programs: "too small: expected string to have >=1 characters"). */
const REQUIRED = { url: 'Enter the server’s URL', username: 'Enter your username', password: 'Enter an app password' };

const capitalised = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

type FormAnswer = { ok: false; message: string; code: string; problems: FieldProblem[] };

/**
 * A refused connection as the form shows it, each problem under its field: the body's own
 * checks, an address refused (the URL), and the server's refusal — a 401 names the password
 * (with the username), anything else the URL the server was reached at.
 */
function refusal(e: unknown): FormAnswer | null {
  if (e instanceof ZodError) {
    const problems = e.issues.map((i) => {
      const field = String(i.path[0] ?? 'url');
      return { field, problem: i.code === 'too_small' && field in REQUIRED ? REQUIRED[field as keyof typeof REQUIRED] : i.message };
    });
    return { ok: false, message: problems.map((p) => `${p.field}: ${p.problem}`).join('; '), code: 'bad_request', problems };
  }
  if (!(e instanceof AppError) || e.status !== 400) return null;
  const extra = e.extra as { fields?: FieldProblem[]; field?: string; reason?: string };
  if (extra.fields?.length) return { ok: false, message: e.message, code: e.code, problems: extra.fields };
  // "url points inside the deployment's network…": under the URL field, the field's name is not repeated.
  if (extra.field) return { ok: false, message: e.message, code: e.code, problems: [{ field: extra.field, problem: capitalised(e.message.replace(new RegExp(`^${extra.field}:? `), '')) }] };
  if (e.code === 'calendar_unreachable') {
    const refusedSignIn = /401|username or password/i.test(extra.reason ?? e.message);
    return { ok: false, message: e.message, code: e.code, problems: [{ field: refusedSignIn ? 'password' : 'url', problem: extra.reason ?? e.message }] };
  }
  return { ok: false, message: e.message, code: e.code, problems: [] };
}

export const calendarRouter = router({
  /** GET /calendar-connections and GET /calendars, with which OAuth providers this deployment offers. */
  overview: userProcedure.query(async ({ ctx }) => ({
    connections: (await listConnections(ctx.db, ctx.actor)).connections,
    calendars: await listUserCalendars(ctx.db, ctx.actor),
    offers: { google: gmailSettings() !== null, microsoft: graphSettings() !== null },
  })),
  /** GET /calendar/events. */
  events: userProcedure.input(EventsQuery).query(async ({ ctx, input }) => ({
    events: (await listEvents(ctx.db, ctx.actor, { from: new Date(input.from), to: new Date(input.to), calendarId: input.calendarId })).map(presentOccurrence),
  })),
  /** GET /calendar/free-busy's busy time, with the working hours and time zone the agent's free_busy adds. */
  availability: userProcedure.input(FreeBusyQuery).query(({ ctx, input }) => availability(ctx.db, ctx.actor, { from: new Date(input.from), to: new Date(input.to) })),
  /** POST /calendar-connections; a refusal (400) is answered, not thrown, so the form can show each problem beside its field. */
  connectCaldav: userProcedure.input(CaldavForm).mutation(async ({ ctx, input }) => {
    try {
      const body = ConnectCalendarBody.parse({ provider: 'caldav', url: input.url.trim(), username: input.username.trim(), password: input.password });
      return await connectCaldav(ctx.db, ctx.actor, body);
    } catch (e) {
      const answer = refusal(e);
      if (answer) return answer;
      throw e;
    }
  }),
  /** DELETE /calendar-connections/{id}. */
  disconnect: userProcedure.input(CalendarConnectionParams).mutation(({ ctx, input }) => deleteConnection(ctx.db, ctx.actor, input.connectionId)),
  /** Which calendars are read (preferences.calendars.read, through PATCH /profile's service). */
  choose: userProcedure.input(ChooseCalendarsBody).mutation(({ ctx, input }) => chooseCalendars(ctx.db, ctx.actor, input)),
});
