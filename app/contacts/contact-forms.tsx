'use client';
import { Trash2, UserPlus } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input } from '@/app/_ui/controls';
import { ConfirmRemoval } from '@/app/_ui/confirm-removal';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field } from '@/app/_ui/field';
import { useNotify } from '@/app/_ui/toast';

/** Adds a contact by email, with a name and a role if known. */
export function AddContact() {
  const router = useRouter();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Add a contact"
      trigger={
        <Button>
          <UserPlus aria-hidden="true" />
          Add a contact
        </Button>
      }
    >
      <form
        className="flex flex-col gap-3"
        onSubmit={async (e) => {
          e.preventDefault();
          setPending(true);
          try {
            await trpc.contacts.create.mutate({ email, ...(name.trim() ? { name: name.trim() } : {}), ...(title.trim() ? { title: title.trim() } : {}) });
            notify('ok', `Added ${name.trim() || email}.`);
            setOpen(false);
            setEmail('');
            setName('');
            setTitle('');
            router.refresh();
          } catch (err) {
            notify('error', describeError(err).message);
          } finally {
            setPending(false);
          }
        }}
      >
        <Field id="contact-email" label="Email">
          <Input id="contact-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="contact-name" label="Name (optional)">
          <Input id="contact-name" value={name} maxLength={300} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="contact-title" label="Role (optional)">
          <Input id="contact-title" value={title} maxLength={300} onChange={(e) => setTitle(e.target.value)} />
        </Field>
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={pending || !email}>
            Add
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Removes a contact after a confirmation; `afterwards`: where to go then (the contact's own page is gone). */
export function RemoveContact({ id, name, afterwards }: { id: string; name: string; afterwards?: string }) {
  return (
    <ConfirmRemoval
      title={`Remove ${name}?`}
      description="Your assistant forgets this contact. Tasks that mention them are kept."
      label={`Remove ${name}`}
      icon={<Trash2 aria-hidden="true" />}
      action="Remove"
      run={() => trpc.contacts.remove.mutate({ contactId: id })}
      done={`Removed ${name}.`}
      afterwards={afterwards}
    />
  );
}
