'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from '../use-save';

const CHANNELS = [
  ['sms', 'SMS'],
  ['imessage', 'iMessage'],
  ['whatsapp', 'WhatsApp'],
  ['voice', 'Voice calls'],
] as const;
type Channel = (typeof CHANNELS)[number][0];

/** Asks for a phone line for the person's assistant, with the channels it should carry. */
export function RequestPhoneLine() {
  const { pending, save } = useSave();
  const [want, setWant] = useState<Record<Channel, boolean>>({ sms: true, imessage: false, whatsapp: false, voice: false });
  const [notes, setNotes] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => trpc.channels.requestPhoneLine.mutate({ requestedChannels: want, notes }), 'Phone line requested: your administrator is told.');
      }}
    >
      <fieldset>
        <legend>Channels</legend>
        {CHANNELS.map(([c, l]) => (
          <label key={c} className={s.check}>
            <input type="checkbox" checked={want[c]} onChange={(e) => setWant({ ...want, [c]: e.target.checked })} /> {l}
          </label>
        ))}
      </fieldset>
      <div className={s.field}>
        <label htmlFor="line-notes">Notes for your administrator (optional)</label>
        <textarea id="line-notes" value={notes} maxLength={2000} onChange={(e) => setNotes(e.target.value)} />
      </div>
      <p>
        <button className={s.button} type="submit" disabled={pending || !Object.values(want).some(Boolean)}>
          Request a phone line
        </button>
      </p>
    </form>
  );
}
