'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Checkbox, Input } from '@/app/_ui/controls';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field, FormRow } from '@/app/_ui/field';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

type EventType = 'task.status_changed' | 'cart.pending_approval' | 'cart.executed' | 'cart.failed' | 'handoff.opened' | 'chat.message' | 'audit.event';

function EventChoice({ eventTypes, chosen, onChange }: { eventTypes: string[]; chosen: string[]; onChange: (next: string[]) => void }) {
  return (
    <fieldset className="mt-3">
      <legend className="text-sm font-medium">Events (none ticked: every event but audit.event)</legend>
      <div className="grid grid-cols-1 gap-x-4 sm:grid-cols-2 lg:grid-cols-3">
        {eventTypes.map((t) => (
          <Checkbox key={t} label={<code>{t}</code>} checked={chosen.includes(t)} onChange={(e) => onChange(e.target.checked ? [...chosen, t] : chosen.filter((x) => x !== t))} />
        ))}
      </div>
    </fieldset>
  );
}

/** Adds an endpoint; its signing secret is shown once. */
export function CreateWebhook({ eventTypes }: { eventTypes: string[] }) {
  const { pending, change } = useChange();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <form
        aria-label="Add an endpoint"
        onSubmit={(e) => {
          e.preventDefault();
          void change(() => trpc.console.webhooks.create.mutate({ url: url.trim(), events: events as EventType[], ...(description.trim() ? { description: description.trim() } : {}) }), 'Endpoint added.').then((r) => {
            if (r) {
              setSecret(r.secret);
              setUrl('');
              setDescription('');
              setEvents([]);
            }
          });
        }}
      >
        <FormRow>
          <Field id="hook-url" label="URL">
            <Input id="hook-url" type="url" required placeholder="https://example.com/steward-events" value={url} onChange={(e) => setUrl(e.target.value)} />
          </Field>
          <Field id="hook-description" label="Description (optional)">
            <Input id="hook-description" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
        </FormRow>
        <EventChoice eventTypes={eventTypes} chosen={events} onChange={setEvents} />
        <Button type="submit" className="mt-3" disabled={pending || !url.trim()}>
          Add endpoint
        </Button>
      </form>
      <Dialog open={secret !== null} onOpenChange={(open) => !open && setSecret(null)} title="The endpoint’s signing secret" description="Verify every delivery with it. It is shown this once and never again.">
        <p className="mb-4 rounded-md bg-surface p-2 font-mono text-sm break-all" data-testid="webhook-secret">
          {secret}
        </p>
        <DialogClose asChild>
          <Button>I have copied it</Button>
        </DialogClose>
      </Dialog>
    </>
  );
}

/** An endpoint's settings: URL, description, events, on or off; a test event; delete. */
export function WebhookSettings({ hook, eventTypes }: { hook: { id: string; url: string; description: string | null; events: string[]; status: 'enabled' | 'disabled' }; eventTypes: string[] }) {
  const router = useRouter();
  const { pending, change } = useChange();
  const [url, setUrl] = useState(hook.url);
  const [description, setDescription] = useState(hook.description ?? '');
  const [events, setEvents] = useState<string[]>(hook.events);
  return (
    <>
      <form
        aria-label="Endpoint settings"
        onSubmit={(e) => {
          e.preventDefault();
          void change(() => trpc.console.webhooks.update.mutate({ webhookId: hook.id, patch: { url: url.trim(), description: description.trim() || null, events: events as EventType[] } }), 'Endpoint saved.');
        }}
      >
        <FormRow>
          <Field id="edit-url" label="URL">
            <Input id="edit-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
          </Field>
          <Field id="edit-description" label="Description">
            <Input id="edit-description" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
        </FormRow>
        <EventChoice eventTypes={eventTypes} chosen={events} onChange={setEvents} />
        <Button type="submit" className="mt-3" disabled={pending || !url.trim()}>
          Save endpoint
        </Button>
      </form>
      <div className="mt-4 flex flex-wrap gap-2 border-t border-border pt-4">
        {hook.status === 'enabled' ? (
          <>
            <Button variant="secondary" disabled={pending} onClick={() => void change(() => trpc.console.webhooks.test.mutate({ webhookId: hook.id }), 'A test event is on its way.')}>
              Send a test event
            </Button>
            <Button variant="secondary" disabled={pending} onClick={() => void change(() => trpc.console.webhooks.update.mutate({ webhookId: hook.id, patch: { status: 'disabled' } }), 'Endpoint turned off.')}>
              Turn off
            </Button>
          </>
        ) : (
          <Button disabled={pending} onClick={() => void change(() => trpc.console.webhooks.update.mutate({ webhookId: hook.id, patch: { status: 'enabled' } }), 'Endpoint turned on.')}>
            Turn on
          </Button>
        )}
        <Confirm
          label="Delete endpoint"
          variant="danger-ghost"
          disabled={pending}
          title="Delete this endpoint?"
          description="Its delivery log goes with it; deliveries in flight stop."
          confirm="Delete endpoint"
          onConfirm={() =>
            void change(() => trpc.console.webhooks.delete.mutate({ webhookId: hook.id }), 'Endpoint deleted.').then((r) => {
              if (r) router.push('/console/webhooks');
            })
          }
        />
      </div>
    </>
  );
}

/** Sends a settled delivery's event again, as a new delivery. */
export function Resend({ webhookId, deliveryId, eventType }: { webhookId: string; deliveryId: string; eventType: string }) {
  const { pending, change } = useChange();
  return (
    <Button variant="secondary" size="sm" disabled={pending} onClick={() => void change(() => trpc.console.webhooks.resend.mutate({ webhookId, deliveryId }), 'Sent again as a new delivery.')}>
      Resend<span className="sr-only"> {eventType} {deliveryId}</span>
    </Button>
  );
}
