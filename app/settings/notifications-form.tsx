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

/** preferences.notifications {channel, quietHours}, saved through the profile service like every preference. */
export function NotificationsForm({ initial }: { initial: { channel: string; quietHours: boolean } }) {
  const [channel, setChannel] = useState(initial.channel as Channel);
  const [quiet, setQuiet] = useState(initial.quietHours);
  const { pending, save } = useSave();
  return (
    <form
      className={s.row}
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => trpc.settings.updateProfile.mutate({ preferences: { notifications: { channel, quietHours: quiet } } }), 'Notification preferences saved.');
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
      <button className={s.button} type="submit" disabled={pending}>
        Save notifications
      </button>
    </form>
  );
}
