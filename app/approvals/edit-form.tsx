'use client';
import { useEffect, useRef, useState } from 'react';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import css from './approvals.module.css';
import type { Dispatch } from './types';

/**
 * Inline edit of a dispatch's text (subject for an email, and the body): saving writes a new
 * version, so the cart's contentHash changes and an approval covers the edit. Nothing changes
 * until "Save edit" is pressed.
 */
export function EditForm({ dispatch: d, idPrefix, pending, onSave, onDiscard }: { dispatch: Dispatch; idPrefix: string; pending: boolean; onSave: (edit: { subject?: string; body?: string }) => void; onDiscard: () => void }) {
  const [subject, setSubject] = useState(d.subject ?? '');
  const [body, setBody] = useState(d.body ?? '');
  const first = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  useEffect(() => first.current?.focus(), []);
  const hasSubject = d.type === 'email';
  const changed = (hasSubject && subject !== (d.subject ?? '')) || body !== (d.body ?? '');
  return (
    <form
      className={css.editor}
      aria-label={`Edit ${d.type === 'email' ? 'email' : 'message'} ${d.index + 1}`}
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ ...(hasSubject && subject !== (d.subject ?? '') ? { subject } : {}), ...(body !== (d.body ?? '') ? { body } : {}) });
      }}
    >
      {hasSubject && (
        <Field id={`${idPrefix}-subject`} label="Subject">
          <input ref={first} id={`${idPrefix}-subject`} value={subject} maxLength={2000} onChange={(e) => setSubject(e.target.value)} />
        </Field>
      )}
      <Field id={`${idPrefix}-body`} label="Body" hint="Sent exactly as you write it, line breaks included.">
        <textarea ref={hasSubject ? undefined : first} id={`${idPrefix}-body`} aria-describedby={`${idPrefix}-body-hint`} value={body} onChange={(e) => setBody(e.target.value)} />
      </Field>
      <div className={css.actions}>
        <button className={s.button} type="submit" disabled={pending || !changed}>
          Save edit
        </button>
        <button className={s.secondary} type="button" disabled={pending} onClick={onDiscard}>
          Discard edit
        </button>
      </div>
    </form>
  );
}
