'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field, FormRow } from '@/app/_ui/field';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

const ACCESS = {
  full: { label: 'Full access', scopes: undefined },
  write: { label: 'Read and write', scopes: ['read', 'write'] },
  read: { label: 'Read only', scopes: ['read'] },
} as const;

/** Makes an account key; its secret is shown once, in a dialog. */
export function CreateAccountKey() {
  const { pending, change } = useChange();
  const [label, setLabel] = useState('');
  const [access, setAccess] = useState<keyof typeof ACCESS>('full');
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <form
        aria-label="Create an account key"
        onSubmit={(e) => {
          e.preventDefault();
          void change(
            () => trpc.console.access.createKey.mutate({ label: label.trim(), ...(ACCESS[access].scopes ? { scopes: [...ACCESS[access].scopes] } : {}), ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}) }),
            'Account key created.',
          ).then((r) => {
            if (r) {
              setSecret(r.apiKey.key ?? null);
              setLabel('');
            }
          });
        }}
      >
        <FormRow>
          <Field id="key-label" label="Name">
            <Input id="key-label" value={label} required maxLength={200} onChange={(e) => setLabel(e.target.value)} />
          </Field>
          <Field id="key-access" label="Access">
            <Select id="key-access" value={access} onChange={(e) => setAccess(e.target.value as keyof typeof ACCESS)}>
              {Object.entries(ACCESS).map(([v, a]) => (
                <option key={v} value={v}>
                  {a.label}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="key-expires" label="Expires (optional)">
            <Input id="key-expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </Field>
          <Button type="submit" disabled={pending || !label.trim()}>
            Create key
          </Button>
        </FormRow>
      </form>
      <Dialog open={secret !== null} onOpenChange={(open) => !open && setSecret(null)} title="The new account key" description="Copy it now: it is shown this once and never again.">
        <p className="mb-4 rounded-md bg-surface p-2 font-mono text-sm break-all" data-testid="new-api-key">
          {secret}
        </p>
        <DialogClose asChild>
          <Button>I have copied it</Button>
        </DialogClose>
      </Dialog>
    </>
  );
}

/** Revoke an active key; delete a revoked one. */
export function KeyActions({ id, label, status }: { id: string; label: string; status: 'active' | 'revoked' }) {
  const { pending, change } = useChange();
  if (status === 'active') {
    return (
      <Confirm
        label="Revoke"
        srLabel={label}
        disabled={pending}
        title={`Revoke “${label}”?`}
        description="Anything using it stops working at once. This cannot be undone."
        confirm="Revoke key"
        onConfirm={() => void change(() => trpc.console.access.revokeKey.mutate({ keyId: id }), `“${label}” revoked.`)}
      />
    );
  }
  return (
    <Confirm
      label="Delete"
      srLabel={label}
      disabled={pending}
      title={`Delete “${label}”?`}
      description="The revoked key leaves the list for good."
      confirm="Delete key"
      onConfirm={() => void change(() => trpc.console.access.deleteKey.mutate({ keyId: id }), `“${label}” deleted.`)}
    />
  );
}
