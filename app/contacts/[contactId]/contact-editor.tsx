'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Switch } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
import { useNotify } from '@/app/_ui/toast';

type Values = { name: string; preferredName: string; title: string; company: string; phone: string; timezone: string; tags: string; shared: boolean };
type PhoneType = 'work' | 'mobile' | 'home' | 'other';
const PHONE_TYPES: readonly string[] = ['work', 'mobile', 'home', 'other'];

/** Only what changed is sent; an emptied field clears it. The first phone is the one edited here; others are kept. */
function patchOf(before: Values, now: Values, phones: Array<{ number: string; type?: string }>) {
  const text = (v: string) => (v.trim() ? v.trim() : null);
  const patch: Record<string, unknown> = {};
  for (const k of ['name', 'preferredName', 'title', 'timezone'] as const) if (now[k].trim() !== before[k].trim()) patch[k] = text(now[k]);
  if (now.company.trim() !== before.company.trim()) patch.company = text(now.company) ? { name: now.company.trim() } : null;
  if (now.phone.trim() !== before.phone.trim()) {
    const [first, ...rest] = phones;
    const kept = rest.map((p) => ({ number: p.number, type: (PHONE_TYPES.includes(p.type ?? '') ? p.type : 'other') as PhoneType, primary: false }));
    const type = (PHONE_TYPES.includes(first?.type ?? '') ? first!.type : 'mobile') as PhoneType;
    patch.phones = now.phone.trim() ? [{ number: now.phone.trim(), type, primary: true }, ...kept] : kept;
  }
  const tags = (v: string) => [...new Set(v.split(',').map((t) => t.trim()).filter(Boolean))];
  if (tags(now.tags).join(',') !== tags(before.tags).join(',')) patch.tags = tags(now.tags);
  if (now.shared !== before.shared) patch.scope = now.shared ? 'team' : 'user';
  return patch;
}

/** The contact's details as a form: saved together with one button, nothing sent when nothing changed. */
export function ContactEditor({ contactId, initial, phones = [] }: { contactId: string; initial: Values; phones?: Array<{ number: string; type?: string }> }) {
  const router = useRouter();
  const notify = useNotify();
  const [saved, setSaved] = useState(initial);
  const [v, setV] = useState(initial);
  const [pending, setPending] = useState(false);
  const patch = patchOf(saved, v, phones);
  const changed = Object.keys(patch).length > 0;
  const set = (k: keyof Values) => (e: React.ChangeEvent<HTMLInputElement>) => setV({ ...v, [k]: k === 'shared' ? e.target.checked : e.target.value });
  return (
    <form
      className="grid gap-4 sm:grid-cols-2"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!changed) return;
        setPending(true);
        try {
          await trpc.contacts.update.mutate({ contactId, patch });
          setSaved(v);
          notify('ok', 'Saved the contact.');
          router.refresh();
        } catch (err) {
          notify('error', describeError(err).message);
        } finally {
          setPending(false);
        }
      }}
    >
      <Field id="contact-name" label="Name">
        <Input id="contact-name" value={v.name} maxLength={500} autoComplete="off" onChange={set('name')} />
      </Field>
      <Field id="contact-preferred" label="Goes by">
        <Input id="contact-preferred" value={v.preferredName} maxLength={500} autoComplete="off" onChange={set('preferredName')} />
      </Field>
      <Field id="contact-role" label="Role">
        <Input id="contact-role" value={v.title} maxLength={500} autoComplete="off" onChange={set('title')} />
      </Field>
      <Field id="contact-company" label="Company">
        <Input id="contact-company" value={v.company} maxLength={300} autoComplete="off" onChange={set('company')} />
      </Field>
      <Field id="contact-phone" label="Phone">
        <Input id="contact-phone" type="tel" value={v.phone} maxLength={50} autoComplete="off" onChange={set('phone')} />
      </Field>
      <Field id="contact-timezone" label="Timezone" hint="Such as Europe/Paris or America/New_York.">
        <Input id="contact-timezone" value={v.timezone} maxLength={100} autoComplete="off" aria-describedby="contact-timezone-hint" onChange={set('timezone')} />
      </Field>
      <Field id="contact-tags" label="Tags" hint="Separated by commas." className="sm:col-span-2">
        <Input id="contact-tags" value={v.tags} maxLength={2000} autoComplete="off" aria-describedby="contact-tags-hint" onChange={set('tags')} />
      </Field>
      <Switch className="sm:col-span-2" label="Shared with your team" hint="Teammates’ assistants can read this contact; only you change it." checked={v.shared} onChange={set('shared')} />
      <div className="flex gap-2 sm:col-span-2">
        <Button type="submit" disabled={pending || !changed}>
          Save changes
        </Button>
        <Button type="button" variant="secondary" disabled={pending || !changed} onClick={() => setV(saved)}>
          Undo changes
        </Button>
      </div>
    </form>
  );
}
