'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Checkbox, Input } from '@/app/_ui/controls';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field } from '@/app/_ui/field';
import { useChange } from '../_ui/use-change';

const CHANNELS = [
  { value: 'sms', label: 'SMS' },
  { value: 'whatsapp', label: 'WhatsApp' },
  { value: 'imessage', label: 'iMessage' },
  { value: 'voice', label: 'Calls' },
] as const;
type Channel = (typeof CHANNELS)[number]['value'];

/** Fulfil (a number, on the channels it serves) or dismiss (a reason the user sees). */
export function RequestActions({ id, who, asked }: { id: string; who: string; asked: Channel[] }) {
  const { pending, change } = useChange();
  const [number, setNumber] = useState('');
  const [channels, setChannels] = useState<Channel[]>(asked.length ? asked : CHANNELS.map((ch) => ch.value));
  const [reason, setReason] = useState('');
  const [open, setOpen] = useState<'fulfil' | 'dismiss' | null>(null);
  const close = (r: unknown) => r && setOpen(null);
  return (
    <div className="flex flex-wrap gap-1">
      <Dialog
        open={open === 'fulfil'}
        onOpenChange={(o) => setOpen(o ? 'fulfil' : null)}
        title={`Give ${who} a number`}
        description="The number goes on their assistant for the channels ticked; they are told."
        trigger={
          <Button size="sm" disabled={pending}>
            Fulfil<span className="sr-only"> the request of {who}</span>
          </Button>
        }
      >
        <form
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void change(() => trpc.console.channels.fulfilPhoneLine.mutate({ requestId: id, number, channels }), (r) => `${r.line.number} assigned.`).then(close);
          }}
        >
          <Field id={`number-${id}`} label="Number (E.164)">
            <Input id={`number-${id}`} type="tel" required placeholder="+14155550123" value={number} onChange={(e) => setNumber(e.target.value)} />
          </Field>
          <fieldset>
            <legend className="text-sm font-medium">Serves</legend>
            <div className="flex flex-wrap gap-x-4">
              {CHANNELS.map((ch) => (
                <Checkbox
                  key={ch.value}
                  label={ch.label}
                  checked={channels.includes(ch.value)}
                  onChange={(e) => setChannels((all) => (e.target.checked ? [...all, ch.value] : all.filter((x) => x !== ch.value)))}
                />
              ))}
            </div>
          </fieldset>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending || !number.trim() || !channels.length}>
              Assign number
            </Button>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
          </div>
        </form>
      </Dialog>
      <Dialog
        open={open === 'dismiss'}
        onOpenChange={(o) => setOpen(o ? 'dismiss' : null)}
        title={`Dismiss the request of ${who}?`}
        description="They see the reason you give."
        trigger={
          <Button variant="danger-ghost" size="sm" disabled={pending}>
            Dismiss<span className="sr-only"> the request of {who}</span>
          </Button>
        }
      >
        <form
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void change(() => trpc.console.channels.dismissPhoneLine.mutate({ requestId: id, reason }), 'Request dismissed.').then(close);
          }}
        >
          <Field id={`reason-${id}`} label="Reason">
            <Input id={`reason-${id}`} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
          </Field>
          <div className="flex flex-wrap gap-2">
            <Button variant="danger" type="submit" disabled={pending}>
              Dismiss request
            </Button>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
          </div>
        </form>
      </Dialog>
    </div>
  );
}
