'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Textarea } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

/** Registers an RSA public key (SPKI PEM); the answer's kid is what tokens name. */
export function RegisterCertificate() {
  const { pending, change } = useChange();
  const [pem, setPem] = useState('');
  return (
    <form
      aria-label="Register a public key"
      className="flex flex-col gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.console.access.registerCertificate.mutate({ publicKeyPem: pem }), (r) => `Registered: kid ${r.kid}.`).then((r) => r && setPem(''));
      }}
    >
      <Field id="cert-pem" label="Public key (PEM)">
        <Textarea id="cert-pem" className="min-h-40 font-mono text-sm" value={pem} required placeholder="-----BEGIN PUBLIC KEY-----" onChange={(e) => setPem(e.target.value)} />
      </Field>
      <div>
        <Button type="submit" disabled={pending || !pem.trim()}>
          Register key
        </Button>
      </div>
    </form>
  );
}

export function RevokeCertificate({ kid }: { kid: string }) {
  const { pending, change } = useChange();
  return (
    <Confirm
      label="Revoke"
      srLabel={`certificate ${kid}`}
      disabled={pending}
      title="Revoke this certificate?"
      description="Tokens signed with its key are refused (401) from now on. This cannot be undone."
      confirm="Revoke certificate"
      onConfirm={() => void change(() => trpc.console.access.revokeCertificate.mutate({ kid }), 'Certificate revoked.')}
    />
  );
}
