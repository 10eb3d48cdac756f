'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from './use-save';

const CHANNELS = [
  ['email', 'Email'],
  ['sms', 'SMS'],
  ['whatsapp', 'WhatsApp'],
  ['imessage', 'iMessage'],
  ['slack', 'Slack'],
  ['teams', 'Microsoft Teams'],
] as const;
type Channel = (typeof CHANNELS)[number][0];

/** The channels a person can turn notices off on (preferences.<channel>.enabled); texts follow the channel chosen. */
const SWITCHABLE = [
  ['email', 'Email'],
  ['slack', 'Slack'],
  ['teams', 'Microsoft Teams'],
] as const;
type Switchable = (typeof SWITCHABLE)[number][0];

/** preferences.notifications {channel, quietHours} and which channels may carry notices, saved through the profile service like every preference. */
export function NotificationsForm({ initial }: { initial: { channel: string; quietHours: boolean; enabled: Record<Switchable, boolean> } }) {
  const [channel, setChannel] = useState(initial.channel as Channel);
  const [quiet, setQuiet] = useState(initial.quietHours);
  const [enabled, setEnabled] = useState(initial.enabled);
  const { pending, save } = useSave();
  return (
    <form
      className={s.row}
      onSubmit={(e) => {
        e.preventDefault();
        const channels = Object.fromEntries(SWITCHABLE.map(([c]) => [c, { enabled: enabled[c] }]));
        void save(() => trpc.settings.updateProfile.mutate({ preferences: { notifications: { channel, quietHours: quiet }, ...channels } }), 'Notification preferences saved.');
      }}
    >
      <Field id="notify-channel" label="Tell me on" hint="A channel you cannot be reached on falls back to email.">
        <select id="notify-channel" aria-describedby="notify-channel-hint" value={channel} onChange={(e) => setChannel(e.target.value as Channel)}>
          {CHANNELS.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <label className={s.check}>
        <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.target.checked)} /> Quiet outside my working hours (urgent notices still come)
      </label>
      <fieldset className={s.row}>
        <legend>Notices may reach me by (one turned off falls back to email; with email off too, they wait in the app)</legend>
        {SWITCHABLE.map(([c, label]) => (
          <label key={c} className={s.check}>
            <input type="checkbox" checked={enabled[c]} onChange={(e) => setEnabled({ ...enabled, [c]: e.target.checked })} /> {label}
          </label>
        ))}
      </fieldset>
      <button className={s.button} type="submit" disabled={pending}>
        Save notifications
      </button>
    </form>
  );
}
