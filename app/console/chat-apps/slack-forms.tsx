'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Field, FormRow } from '@/app/_ui/field';
import { useChange } from '../_ui/use-change';

/** The account's marketplace app for an account-wide assistant; Slack's "create from manifest" link follows. */
export function CreateMarketplaceApp({ assistants }: { assistants: Array<{ id: string; name: string }> }) {
  const { pending, change } = useChange();
  const [assistantId, setAssistantId] = useState(assistants[0]?.id ?? '');
  const [name, setName] = useState(assistants[0]?.name ?? '');
  const [createUrl, setCreateUrl] = useState<string | null>(null);
  if (!assistants.length) return <p className="text-muted">The marketplace app is for an account-wide assistant; the account has none yet (POST /assistants with an account key).</p>;
  return (
    <>
      <form
        aria-label="Create the marketplace app"
        onSubmit={(e) => {
          e.preventDefault();
          void change(() => trpc.console.channels.createMarketplaceApp.mutate({ assistantId, botDisplayName: name }), 'Marketplace app ready.').then((r) => r && setCreateUrl(r.manifest.createAppUrl));
        }}
      >
        <FormRow>
          <Field id="slack-assistant" label="Assistant">
            <Select
              id="slack-assistant"
              value={assistantId}
              onChange={(e) => {
                setAssistantId(e.target.value);
                setName(assistants.find((a) => a.id === e.target.value)?.name ?? '');
              }}
            >
              {assistants.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="slack-bot" label="Bot name in Slack">
            <Input id="slack-bot" required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <Button type="submit" disabled={pending || !name.trim()}>
            Create marketplace app
          </Button>
        </FormRow>
      </form>
      {createUrl && (
        <p role="status" className="mt-3">
          Next: <a href={createUrl}>create the app in Slack from its manifest</a>.
        </p>
      )}
    </>
  );
}
