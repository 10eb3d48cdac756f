'use client';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/app/_ui/button';
import { Input, Textarea } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
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
      className="my-2 flex flex-col gap-3 rounded-md border border-accent/40 bg-accent-soft/40 p-3"
      aria-label={`Edit the ${d.type === 'email' ? 'email' : 'message'}`}
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ ...(hasSubject && subject !== (d.subject ?? '') ? { subject } : {}), ...(body !== (d.body ?? '') ? { body } : {}) });
      }}
    >
      {hasSubject && (
        <Field id={`${idPrefix}-subject`} label="Subject">
          <Input ref={first} id={`${idPrefix}-subject`} value={subject} maxLength={2000} onChange={(e) => setSubject(e.target.value)} />
        </Field>
      )}
      <Field id={`${idPrefix}-body`} label="Body" hint="Sent exactly as you write it, line breaks included.">
        <Textarea ref={hasSubject ? undefined : first} id={`${idPrefix}-body`} aria-describedby={`${idPrefix}-body-hint`} value={body} className="min-h-40" onChange={(e) => setBody(e.target.value)} />
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending || !changed}>
          Save edit
        </Button>
        <Button variant="secondary" disabled={pending} onClick={onDiscard}>
          Discard edit
        </Button>
      </div>
    </form>
  );
}
