'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { useSave } from '../use-save';
import { ACTION, MODE } from './labels';

type Exception = Out['settings']['exceptions']['recipientExceptions'][number];

/** Recipient exceptions: a domain or an address handled differently for chosen action types. */
export function Exceptions({ exceptions }: { exceptions: Exception[] }) {
  const { pending, save } = useSave();
  const [kind, setKind] = useState<'domain' | 'address'>('domain');
  const [value, setValue] = useState('');
  const [label, setLabel] = useState('');
  const [mode, setMode] = useState<'auto' | 'time-boxed' | 'manual'>('auto');
  const [applies, setApplies] = useState<string[]>(['email_as_assistant']);
  return (
    <>
      {exceptions.length === 0 ? (
        <p className={ui.muted}>No exceptions: every recipient follows the grid above.</p>
      ) : (
        <ul className={ui.list} aria-label="Recipient exceptions">
          {exceptions.map((x) => (
            <li key={x.id} className={ui.item}>
              <strong>{x.label}</strong>: {x.match.kind} <code>{x.match.value}</code> · {MODE[x.mode]} · for {x.appliesTo.map((a) => ACTION[a]?.label ?? a).join(', ')}{' '}
              <button className={s.secondary} type="button" disabled={pending} onClick={() => void save(() => trpc.settings.removeException.mutate({ exceptionId: x.id }), `Exception “${x.label}” removed.`)}>
                Remove<span className="sr-only"> exception {x.label}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        aria-label="Add a recipient exception"
        onSubmit={(e) => {
          e.preventDefault();
          void save(
            () => trpc.settings.addException.mutate({ ...(label.trim() ? { label: label.trim() } : {}), match: { kind, value }, mode, ...(mode === 'time-boxed' ? { timeBoxedWindowMin: 30 } : {}), appliesTo: applies as never }),
            'Exception added.',
          ).then((ok) => ok && setValue(''));
        }}
      >
        <div className={s.row}>
          <Field id="exc-kind" label="Match">
            <select id="exc-kind" value={kind} onChange={(e) => setKind(e.target.value as 'domain' | 'address')}>
              <option value="domain">Everyone at a domain</option>
              <option value="address">One address</option>
            </select>
          </Field>
          <Field id="exc-value" label={kind === 'domain' ? 'Domain (example.org)' : 'Email or phone'}>
            <input id="exc-value" value={value} required maxLength={320} onChange={(e) => setValue(e.target.value)} />
          </Field>
          <Field id="exc-label" label="Label (optional)">
            <input id="exc-label" value={label} maxLength={200} onChange={(e) => setLabel(e.target.value)} />
          </Field>
          <Field id="exc-mode" label="When to send">
            <select id="exc-mode" value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
              {Object.entries(MODE).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <fieldset>
          <legend>For</legend>
          {Object.entries(ACTION).map(([t, a]) => (
            <label key={t} className={s.check}>
              <input type="checkbox" checked={applies.includes(t)} onChange={(e) => setApplies(e.target.checked ? [...applies, t] : applies.filter((x) => x !== t))} /> {a.label}
            </label>
          ))}
        </fieldset>
        <p>
          <button className={s.button} type="submit" disabled={pending || !value.trim() || !applies.length}>
            Add exception
          </button>
        </p>
      </form>
    </>
  );
}
