import { CalendarDays, MapPin, Repeat } from 'lucide-react';
import type { Prefs } from '@/app/_lib/time';
import { Badge, Empty } from '@/app/_ui/states';
import { dayLabel, eventsByDay, eventTimes, type AgendaEvent, type Day } from './days';
import { calendarColour, type CalendarInfo } from './labels';

/**
 * The coming days, one titled list per day, each event with its time in the person's zone, its
 * calendar and its place. Titles and places are written by other people: shown as text, never
 * as links or markup.
 */
export function Agenda({ days, events, calendars, prefs }: { days: Day[]; events: AgendaEvent[]; calendars: CalendarInfo[]; prefs: Prefs }) {
  const byId = new Map(calendars.map((c) => [c.id, c]));
  const grouped = eventsByDay(days, events.filter((e) => e.status !== 'cancelled'));
  if (grouped.every((g) => g.events.length === 0)) {
    return (
      <Empty title="Nothing in the next 7 days." icon={CalendarDays}>
        <p>Events of the calendars your assistant reads appear here. Add one in your calendar app, or choose more calendars below.</p>
      </Empty>
    );
  }
  return (
    <div className="flex flex-col gap-5">
      {grouped.map(({ day, events: list }, i) => (
        <section key={day.key} aria-labelledby={`day-${day.key}`} data-testid="agenda-day">
          <h3 id={`day-${day.key}`} className="mb-1.5 text-sm font-semibold text-muted">
            {dayLabel(day, i, prefs)}
          </h3>
          {list.length === 0 ? (
            <p className="text-sm text-muted">Nothing planned.</p>
          ) : (
            <ul aria-label={dayLabel(day, i, prefs)} className="divide-y divide-border overflow-hidden rounded-lg border border-border bg-raised">
              {list.map((e) => {
                const calendar = byId.get(e.calendarId);
                return (
                  <li key={`${e.id}-${day.key}`} data-testid="agenda-event" className="flex min-h-11 items-start gap-3 px-3 py-2 sm:px-4">
                    <span aria-hidden="true" className="mt-1.5 size-2.5 shrink-0 rounded-full" style={{ background: calendarColour(calendar) }} />
                    <span className="w-28 shrink-0 pt-px text-sm text-muted tabular sm:w-40">{eventTimes(e, day, prefs)}</span>
                    <div className="min-w-0 flex-1">
                      <p className="font-medium [overflow-wrap:anywhere]">
                        {e.title || '(no title)'} {e.status === 'tentative' && <Badge>Tentative</Badge>}
                      </p>
                      <div className="flex min-w-0 flex-wrap items-center gap-x-2 text-sm text-muted">
                        {calendar && <span>{calendar.name}</span>}
                        {e.location && (
                          <span className="inline-flex min-w-0 items-center gap-1 [overflow-wrap:anywhere]">
                            <MapPin aria-hidden="true" className="size-3.5 shrink-0" />
                            <span className="sr-only">Where: </span>
                            {e.location}
                          </span>
                        )}
                        {e.recurring && (
                          <span className="inline-flex items-center gap-1">
                            <Repeat aria-hidden="true" className="size-3.5" />
                            Repeats
                          </span>
                        )}
                      </div>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}
