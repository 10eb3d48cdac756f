'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { useSave } from './use-save';

const DAYS = [
  ['MO', 'Monday'],
  ['TU', 'Tuesday'],
  ['WE', 'Wednesday'],
  ['TH', 'Thursday'],
  ['FR', 'Friday'],
  ['SA', 'Saturday'],
  ['SU', 'Sunday'],
] as const;
type Day = (typeof DAYS)[number][0];
type Prefs = { availability: { workingHours: Record<string, Array<{ start: string; end: string }>> }; defaultMeetingDurationMin: number; bufferBetweenMeetingsMin: number; minimumNoticeMin: number; allowBackToBack: boolean };
type Row = { on: boolean; start: string; end: string };

/**
 * Working hours, one span a day (a day with several spans keeps its first here). Saving sends
 * the whole scheduling object back, since PUT replaces it: the other fields keep their values.
 */
export function HoursForm({ initial, saved, timezone }: { initial: Prefs; saved: boolean; timezone: string }) {
  const [rows, setRows] = useState<Record<Day, Row>>(() =>
    Object.fromEntries(DAYS.map(([d]) => {
      const span = initial.availability.workingHours[d]?.[0];
      return [d, { on: Boolean(span), start: span?.start ?? '09:00', end: span?.end ?? '17:00' }];
    })) as Record<Day, Row>,
  );
  const { pending, save } = useSave();
  const set = (d: Day, r: Partial<Row>) => setRows({ ...rows, [d]: { ...rows[d], ...r } });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const workingHours = Object.fromEntries(DAYS.filter(([d]) => rows[d].on).map(([d]) => [d, [{ start: rows[d].start, end: rows[d].end }]]));
        void save(() => trpc.settings.putScheduling.mutate({ schedulingPreferences: { ...initial, availability: { workingHours } } }), 'Working hours saved.');
      }}
    >
      <p className={ui.muted}>
        In your timezone ({timezone}). {saved ? '' : 'Not saved yet: your assistants assume these until you save.'}
      </p>
      <table className={s.table} tabIndex={0}>
        <caption className="sr-only">Working hours per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Works</th>
            <th scope="col">From</th>
            <th scope="col">Until</th>
          </tr>
        </thead>
        <tbody>
          {DAYS.map(([d, name]) => (
            <tr key={d}>
              <th scope="row">{name}</th>
              <td>
                {/* The label around it is the 44 px target a thumb needs. */}
                <label className="inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center">
                  <input type="checkbox" aria-label={`Works on ${name}`} checked={rows[d].on} onChange={(e) => set(d, { on: e.target.checked })} />
                </label>
              </td>
              <td>
                <input type="time" aria-label={`${name} from`} value={rows[d].start} disabled={!rows[d].on} onChange={(e) => set(d, { start: e.target.value })} />
              </td>
              <td>
                <input type="time" aria-label={`${name} until`} value={rows[d].end} disabled={!rows[d].on} onChange={(e) => set(d, { end: e.target.value })} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <button className={s.button} type="submit" disabled={pending || !DAYS.some(([d]) => rows[d].on)}>
          Save working hours
        </button>
      </p>
    </form>
  );
}
