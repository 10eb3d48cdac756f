'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from '../use-save';

/** Adds an email or phone, unverified until its code comes back. */
export function AddIdentifier() {
  const { pending, save } = useSave();
  const [type, setType] = useState<'email' | 'phone'>('email');
  const [value, setValue] = useState('');
  return (
    <form
      className={s.row}
      aria-label="Add an email or phone"
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => trpc.identifiers.add.mutate({ type, value }), `${value} added: send it a code to verify it.`).then((ok) => ok && setValue(''));
      }}
    >
      <Field id="new-id-type" label="Kind">
        <select id="new-id-type" value={type} onChange={(e) => setType(e.target.value as 'email' | 'phone')}>
          <option value="email">Email</option>
          <option value="phone">Phone</option>
        </select>
      </Field>
      <Field id="new-id-value" label={type === 'email' ? 'Email address' : 'Phone number (+44 20 …)'}>
        <input id="new-id-value" type={type === 'email' ? 'email' : 'tel'} value={value} required maxLength={320} onChange={(e) => setValue(e.target.value)} />
      </Field>
      <button className={s.button} type="submit" disabled={pending || !value.trim()}>
        Add
      </button>
    </form>
  );
}
