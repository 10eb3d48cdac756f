'use client';
import { useMemo, useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from './use-save';

/** Names and timezone (PATCH /profile's service). */
export function ProfileForm({ initial }: { initial: { firstName: string; lastName: string; timezone: string } }) {
  const [v, setV] = useState(initial);
  const { pending, save } = useSave();
  const zones = useMemo(() => {
    const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    return all.includes(initial.timezone) ? all : [initial.timezone, ...all];
  }, [initial.timezone]);
  return (
    <form
      className={s.row}
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => trpc.settings.updateProfile.mutate(v), 'Profile saved.');
      }}
    >
      <Field id="first-name" label="First name">
        <input id="first-name" value={v.firstName} maxLength={200} onChange={(e) => setV({ ...v, firstName: e.target.value })} />
      </Field>
      <Field id="last-name" label="Last name">
        <input id="last-name" value={v.lastName} maxLength={200} onChange={(e) => setV({ ...v, lastName: e.target.value })} />
      </Field>
      <Field id="timezone" label="Timezone">
        <select id="timezone" value={v.timezone} onChange={(e) => setV({ ...v, timezone: e.target.value })}>
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </Field>
      <button className={s.button} type="submit" disabled={pending}>
        Save profile
      </button>
    </form>
  );
}
