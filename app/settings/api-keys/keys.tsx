'use client';
import { Time } from '@/app/_ui/time';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field } from '@/app/_ui/field';
import { Badge } from '@/app/_ui/states';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { useSave } from '../use-save';

type Key = Out['apiKeys']['list']['apiKeys'][number];
const ACCESS = {
  read: { label: 'Read only', scopes: ['read'] },
  write: { label: 'Read and write', scopes: ['read', 'write'] },
} as const;

/** Creates a key acting as the person; its secret is shown once, in a dialog, never again. */
export function CreateKey() {
  const { pending, save } = useSave();
  const [label, setLabel] = useState('');
  const [access, setAccess] = useState<keyof typeof ACCESS>('read');
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <form
        className={s.row}
        aria-label="Create an API key"
        onSubmit={(e) => {
          e.preventDefault();
          void save(async () => {
            const { apiKey } = await trpc.apiKeys.create.mutate({ label, scopes: [...ACCESS[access].scopes], ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}) });
            setSecret(apiKey.key);
            setLabel('');
          }, 'API key created.');
        }}
      >
        <Field id="key-label" label="Name">
          <input id="key-label" value={label} required maxLength={200} onChange={(e) => setLabel(e.target.value)} />
        </Field>
        <Field id="key-access" label="Access">
          <select id="key-access" value={access} onChange={(e) => setAccess(e.target.value as keyof typeof ACCESS)}>
            {Object.entries(ACCESS).map(([v, a]) => (
              <option key={v} value={v}>
                {a.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="key-expires" label="Expires (optional)">
          <input id="key-expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </Field>
        <button className={s.button} type="submit" disabled={pending || !label.trim()}>
          Create key
        </button>
      </form>
      <Dialog open={secret !== null} onOpenChange={(open) => !open && setSecret(null)} title="Your new API key" description="Copy it now: it is shown this once and never again.">
        <p>
          <code className={s.code} data-testid="new-api-key">
            {secret}
          </code>
        </p>
        <div className={ui.actions}>
          <button className={s.secondary} type="button" onClick={() => void navigator.clipboard?.writeText(secret ?? '')}>
            Copy
          </button>
          <DialogClose asChild>
            <button className={s.button} type="button">
              I have copied it
            </button>
          </DialogClose>
        </div>
      </Dialog>
    </>
  );
}

/** The person's keys: what each may do, when last used, and revoke (after a confirmation). */
export function KeyList({ keys }: { keys: Key[] }) {
  const { pending, save } = useSave();
  if (!keys.length) return <p className={ui.muted}>You have no API key.</p>;
  return (
    <ul className={ui.list} aria-label="Your API keys">
      {keys.map((k) => (
        <li key={k.id} className={ui.item}>
          <div className={ui.itemHead}>
            <p className={ui.itemTitle}>
              <strong>{k.label}</strong> <code className={s.code}>{k.prefix}…</code>
            </p>
            <Badge tone={k.status === 'active' ? 'ok' : 'plain'}>{k.status === 'active' ? 'Active' : 'Revoked'}</Badge>
          </div>
          <p className={ui.meta}>
            {k.scopes.length ? k.scopes.join(', ') : 'full access'} · created <Time value={k.createdAt} /> · {k.lastUsedAt ? <>last used <Time value={k.lastUsedAt} /></> : 'never used'}
            {k.expiresAt ? <> · expires <Time value={k.expiresAt} /></> : ''}
          </p>
          {k.status === 'active' && (
            <Dialog
              title={`Revoke “${k.label}”?`}
              description="Anything using it stops working at once. This cannot be undone."
              trigger={
                <button className={s.secondary} type="button" disabled={pending}>
                  Revoke<span className="sr-only"> {k.label}</span>
                </button>
              }
            >
              <div className={ui.actions}>
                <DialogClose asChild>
                  <button className={s.danger} type="button" onClick={() => void save(() => trpc.apiKeys.revoke.mutate({ keyId: k.id }), `“${k.label}” revoked.`)}>
                    Revoke key
                  </button>
                </DialogClose>
                <DialogClose asChild>
                  <button className={s.secondary} type="button">
                    Keep it
                  </button>
                </DialogClose>
              </div>
            </Dialog>
          )}
        </li>
      ))}
    </ul>
  );
}
