'use client';
import { Copy, KeyRound, Plus } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field } from '@/app/_ui/field';
import { Row, RowList } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';

type Key = Out['organizations']['keys']['apiKeys'][number];
const ACCESS = {
  read: { label: 'Read only', scopes: ['read'] },
  write: { label: 'Read and write', scopes: ['read', 'write'] },
} as const;

/**
 * The organization's own API keys: mint one (its secret shown once, in a dialog) and revoke one
 * after a confirmation. The keys act for the organization: its users and teams, no one else's.
 */
export function OrgKeys({ orgId, keys }: { orgId: string; keys: Key[] }) {
  const router = useRouter();
  const notify = useNotify();
  const [label, setLabel] = useState('');
  const [access, setAccess] = useState<keyof typeof ACCESS>('read');
  const [pending, setPending] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const act = async (fn: () => Promise<void>, ok: string) => {
    setPending(true);
    try {
      await fn();
      notify('ok', ok);
      router.refresh();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <form
        aria-label="Create an organization key"
        className="mb-4 grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_auto]"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const { apiKey } = await trpc.organizations.createKey.mutate({ orgId, key: { label, scopes: [...ACCESS[access].scopes] } });
            setSecret(apiKey.key);
            setLabel('');
          }, 'Organization key created.');
        }}
      >
        <Field id="org-key-label" label="Name">
          <Input id="org-key-label" value={label} required maxLength={200} placeholder="e.g. HR system sync" onChange={(e) => setLabel(e.target.value)} />
        </Field>
        <Field id="org-key-access" label="Access">
          <Select id="org-key-access" value={access} onChange={(e) => setAccess(e.target.value as keyof typeof ACCESS)}>
            {Object.entries(ACCESS).map(([v, a]) => (
              <option key={v} value={v}>
                {a.label}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" disabled={pending || !label.trim()}>
          <Plus aria-hidden="true" />
          Create key
        </Button>
      </form>
      {keys.length === 0 ? (
        <Empty title="No organization keys yet" icon={KeyRound}>
          <p>A key here lets a system of your organization (a directory sync, an intranet) call Steward for your members.</p>
        </Empty>
      ) : (
        <RowList label="Organization keys">
          {keys.map((k) => (
            <Row
              key={k.id}
              title={k.label}
              lead={<KeyRound aria-hidden="true" />}
              meta={
                <>
                  <span>{k.scopes.includes('write') ? 'Read and write' : k.scopes.length ? 'Read only' : 'Full access'}</span>
                  <span aria-hidden="true">·</span>
                  <span>
                    created <Time value={k.createdAt} />
                  </span>
                  <span aria-hidden="true">·</span>
                  <span>{k.lastUsedAt ? <>last used <Time value={k.lastUsedAt} /></> : 'never used'}</span>
                </>
              }
              trail={
                k.status === 'revoked' ? (
                  <Badge>Revoked</Badge>
                ) : (
                  <Button variant="danger-ghost" size="sm" disabled={pending} onClick={() => setRevoking(k)}>
                    Revoke<span className="sr-only"> {k.label}</span>
                  </Button>
                )
              }
            />
          ))}
        </RowList>
      )}
      <Dialog open={secret !== null} onOpenChange={(open) => !open && setSecret(null)} title="Your new organization key" description="Copy it now: it is shown this once and never again.">
        <p className="rounded-md bg-surface p-3 font-mono text-sm break-all" data-testid="new-org-key">
          {secret}
        </p>
        <div className="mt-4 flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={() => void navigator.clipboard?.writeText(secret ?? '')}>
            <Copy aria-hidden="true" />
            Copy
          </Button>
          <DialogClose asChild>
            <Button>I have copied it</Button>
          </DialogClose>
        </div>
      </Dialog>
      <Dialog open={revoking !== null} onOpenChange={(open) => !open && setRevoking(null)} title={`Revoke “${revoking?.label ?? ''}”?`} description="Systems using it stop working at once. This cannot be undone.">
        <div className="flex flex-wrap justify-end gap-2">
          <DialogClose asChild>
            <Button variant="secondary">Keep it</Button>
          </DialogClose>
          <Button
            variant="danger"
            disabled={pending}
            onClick={() => {
              const k = revoking!;
              setRevoking(null);
              void act(async () => void (await trpc.organizations.revokeKey.mutate({ orgId, keyId: k.id })), `Revoked “${k.label}”.`);
            }}
          >
            Revoke the key
          </Button>
        </div>
      </Dialog>
    </>
  );
}
