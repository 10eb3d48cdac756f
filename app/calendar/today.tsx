import type { Prefs } from '@/app/_lib/time';
import { duration, formatRange, freeWithin, type Day } from './days';

type Availability = { busy: Array<{ start: string; end: string }>; workingHours: Record<string, Array<{ start: string; end: string }>> };

/**
 * Today at a glance, as the assistant sees it when it proposes a time: how long the person is
 * busy, when, and the free time left inside their working hours.
 */
export function Today({ day, availability, prefs }: { day: Day; availability: Availability; prefs: Prefs }) {
  const hours = availability.workingHours[day.code] ?? [];
  const free = freeWithin(day, hours, availability.busy, prefs.timezone);
  const busyMs = availability.busy.reduce((sum, b) => sum + Date.parse(b.end) - Date.parse(b.start), 0);
  return (
    <div className="grid gap-4 sm:grid-cols-2" data-testid="today">
      <div>
        <h3 className="text-sm font-semibold text-muted">Busy</h3>
        {availability.busy.length === 0 ? (
          <p>Nothing in your calendars today.</p>
        ) : (
          <>
            <p>{duration(busyMs)} in total</p>
            <ul aria-label="Busy today" className="mt-1 flex flex-wrap gap-1.5">
              {availability.busy.map((b) => (
                <li key={b.start} className="rounded-md border border-border bg-surface px-2 py-0.5 text-sm tabular">
                  {formatRange(b, prefs)}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <div>
        <h3 className="text-sm font-semibold text-muted">Free in your working hours</h3>
        {hours.length === 0 ? (
          <p>Today is not a working day for you.</p>
        ) : free.length === 0 ? (
          <p>No free time left in your working hours.</p>
        ) : (
          <ul aria-label="Free today" className="mt-1 flex flex-wrap gap-1.5">
            {free.map((f) => (
              <li key={f.start.toISOString()} className="rounded-md border border-ok/50 bg-ok-soft px-2 py-0.5 text-sm tabular">
                {formatRange(f, prefs)}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
