'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Checkbox } from '@/app/_ui/controls';
import { Problem } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';
import { calendarColour, PROVIDER_NAMES, type Provider } from './labels';

type Calendar = { id: string; connectionId: string; provider: Provider; name: string; color: string | null; readOnly: boolean; primary: boolean; selected: boolean };

/**
 * Which calendars the assistant reads (preferences.calendars.read): the agenda, free/busy,
 * reminders and triggers use only these. At least one stays chosen; a calendar added later to a
 * connection is read too while every calendar is chosen.
 */
export function CalendarChoice({ calendars }: { calendars: Calendar[] }) {
  const router = useRouter();
  const notify = useNotify();
  const [chosen, setChosen] = useState(() => new Set(calendars.filter((c) => c.selected).map((c) => c.id)));
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const changed = calendars.some((c) => c.selected !== chosen.has(c.id));
  return (
    <form
      aria-label="Calendars your assistant reads"
      onSubmit={async (e) => {
        e.preventDefault();
        setPending(true);
        setProblem(null);
        try {
          await trpc.calendar.choose.mutate({ calendarIds: [...chosen] });
          notify('ok', `Your assistant reads ${chosen.size === calendars.length ? 'every calendar' : `${chosen.size} of your ${calendars.length} calendars`}.`);
          router.refresh();
        } catch (err) {
          setProblem(describeError(err).message);
        } finally {
          setPending(false);
        }
      }}
    >
      <fieldset>
        <legend className="sr-only">Calendars your assistant reads</legend>
        <ul className="grid gap-x-6 sm:grid-cols-2">
          {calendars.map((c) => (
            <li key={c.id}>
              <Checkbox
                name="calendarIds"
                value={c.id}
                checked={chosen.has(c.id)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.target.checked) next.add(c.id);
                  else next.delete(c.id);
                  setChosen(next);
                }}
                label={
                  <span className="inline-flex items-center gap-2">
                    <span aria-hidden="true" className="size-2.5 shrink-0 rounded-full" style={{ background: calendarColour(c) }} />
                    {c.name}
                  </span>
                }
                hint={[PROVIDER_NAMES[c.provider], c.primary ? 'main calendar' : null, c.readOnly ? 'read only' : null].filter(Boolean).join(' · ')}
              />
            </li>
          ))}
        </ul>
      </fieldset>
      {chosen.size === 0 && <p className="mt-2 text-sm text-danger">Choose at least one calendar. To stop reading a calendar entirely, disconnect it.</p>}
      {problem && <Problem>{problem}</Problem>}
      <Button type="submit" variant="secondary" className="mt-3" disabled={pending || !changed || chosen.size === 0}>
        Save choice
      </Button>
    </form>
  );
}
