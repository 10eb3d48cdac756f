import { CalendarPlus } from 'lucide-react';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { DEFAULT_PREFS } from '@/app/_lib/time';
import { Button } from '@/app/_ui/button';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Empty, Notice } from '@/app/_ui/states';
import { Agenda } from './agenda';
import { CaldavForm } from './caldav-form';
import { CalendarChoice } from './calendar-choice';
import { Connections } from './connections';
import { daysFrom } from './days';
import { accountOf, oauthConnectHref, PROVIDER_NAMES } from './labels';
import { Today } from './today';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Calendar · Steward' };

const AGENDA_DAYS = 7;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.slice(0, 100) || undefined;

/**
 * The person's calendars as their assistant sees them (issues 43 and 45): today's busy and free
 * time, the coming 7 days, the connections with their state, which calendars are read, and
 * connecting Google, Microsoft 365 or any CalDAV server. Every read goes through the same
 * services as the calendar API, in the person's own time zone.
 */
export default async function CalendarPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const q = await searchParams;
  const { api, me } = await requireSignedIn('/calendar');
  const prefs = me.prefs ?? DEFAULT_PREFS;
  const { connections, calendars, offers } = await api.calendar.overview();
  const days = daysFrom(new Date(), prefs.timezone, AGENDA_DAYS);
  const window = { from: days[0].start.toISOString(), to: days.at(-1)!.end.toISOString() };
  const [agenda, today] = calendars.length
    ? await Promise.all([api.calendar.events(window), api.calendar.availability({ from: days[0].start.toISOString(), to: days[0].end.toISOString() })])
    : [null, null];
  const reconnecting = connections.find((c) => c.id === one(q.reconnect) && c.provider === 'caldav') ?? null;
  const outcome = one(q.calendar);

  return (
    <HostedFrame me={me} title="Calendar" description="What your assistant sees of your time: the calendars it reads, your next 7 days and today’s free time.">
      {outcome === 'connected' && <Notice tone="info">Your calendar is connected. Its events appear here once the first sync has finished.</Notice>}
      {outcome === 'denied' && <Notice>The calendar was not connected: the permission to read it was not given. Try again and allow calendar access.</Notice>}

      {connections.length === 0 ? (
        <Empty
          title="No calendar connected yet."
          icon={CalendarPlus}
          className="my-4"
          action={
            <Button asChild variant="secondary">
              <a href="#connect-title">Connect a calendar</a>
            </Button>
          }
        >
          <p>Connect your calendar so your assistant can see when you are free, propose meeting times, remind you of events and never double-book you.</p>
        </Empty>
      ) : (
        <>
          {today && (
            <Section id="today-title" title="Today" description="Busy and free time across the calendars your assistant reads.">
              <Today day={days[0]} availability={today} prefs={{ ...prefs, timezone: today.timezone || prefs.timezone }} />
            </Section>
          )}
          <Section id="agenda-title" title="Next 7 days" bare>
            {agenda ? (
              <Agenda days={days} events={agenda.events} calendars={calendars} prefs={prefs} />
            ) : (
              <Empty title="No calendars found yet.">
                <p>Your connection has no calendars yet, or they are still being listed. Reload in a minute, or connect the calendar again.</p>
              </Empty>
            )}
          </Section>
          <Section id="connections-title" title="Connections" bare>
            <Connections connections={connections} offers={offers} />
          </Section>
          {calendars.length > 0 && (
            <Section id="choice-title" title="Calendars your assistant reads" description="Only these count for your agenda, free time, reminders and calendar triggers.">
              <CalendarChoice calendars={calendars} />
            </Section>
          )}
        </>
      )}

      <Section id="connect-title" title={connections.length ? 'Connect another calendar' : 'Connect a calendar'}>
        {(offers.google || offers.microsoft) && (
          <div className="mb-5 flex flex-wrap gap-2">
            {(['google', 'microsoft'] as const)
              .filter((p) => offers[p])
              .map((p) => (
                <Button key={p} asChild variant="secondary">
                  <a href={oauthConnectHref(p)}>Connect {PROVIDER_NAMES[p]}</a>
                </Button>
              ))}
          </div>
        )}
        <h3 id="caldav-title" className="mb-1 text-base font-semibold">
          {reconnecting ? `Reconnect ${PROVIDER_NAMES.caldav} (${accountOf(reconnecting)})` : 'Any CalDAV calendar'}
        </h3>
        <p className="mb-4 text-sm text-muted">
          {reconnecting
            ? 'Enter a new app password: the connection keeps its calendars and starts syncing again.'
            : `Fastmail, iCloud, Nextcloud, Radicale and most other calendars speak CalDAV.${offers.google || offers.microsoft ? '' : ' Google and Microsoft 365 connections are not set up on this app; ask your administrator.'}`}
        </p>
        <CaldavForm key={reconnecting?.id ?? 'new'} reconnect={reconnecting ? { url: reconnecting.url ?? '', username: reconnecting.username ?? '' } : null} />
      </Section>
    </HostedFrame>
  );
}
