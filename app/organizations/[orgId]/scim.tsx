'use client';
import { Time } from '@/app/_ui/time';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';

type Scim = { hasToken?: boolean; tokenCreatedAt?: string | null; endpoint?: string | null } | null;

/** SCIM: the endpoint URL and a bearer token minted (or rotated) here and shown once. */
export function ScimPanel({ orgId, scim, endpoint }: { orgId: string; scim: Scim; endpoint: string }) {
  const [token, setToken] = useState<string | null>(null);
  const { run, pending, status } = useAction();
  return (
    <>
      <p>
        SCIM 2.0 base URL: <code className={s.code}>{scim?.endpoint ?? endpoint}</code>
      </p>
      <p>{scim?.hasToken ? <>A token is active (created <Time value={scim.tokenCreatedAt ?? null} />).</> : 'No token yet.'}</p>
      <button
        className={s.button}
        type="button"
        disabled={pending}
        onClick={() => run(() => trpc.organizations.mintScimToken.mutate({ orgId }), scim?.hasToken ? 'Token rotated: the old one no longer works' : 'Token created', (r) => setToken((r as { token: string }).token))}
      >
        {scim?.hasToken ? 'Rotate token' : 'Create token'}
      </button>
      {token && (
        <Field id="scim-token" label="New token: copy it now, it is shown only once">
          <input id="scim-token" readOnly value={token} onFocus={(e) => e.target.select()} />
        </Field>
      )}
      {status}
    </>
  );
}
