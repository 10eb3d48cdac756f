'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { Organization } from './types';

export function GeneralForm({ org, canEdit }: { org: Organization; canEdit: boolean }) {
  const [name, setName] = useState(org.name);
  const [info, setInfo] = useState(org.generalInfo);
  const { run, pending, status } = useAction();
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        run(() => trpc.organizations.update.mutate({ orgId: org.id, patch: { name, generalInfo: info } }), 'Saved');
      }}
    >
      <div className={s.row}>
        <Field id="org-name" label="Name">
          <input id="org-name" value={name} onChange={(e) => setName(e.target.value)} readOnly={!canEdit} required />
        </Field>
      </div>
      <Field id="org-info" label="General information" hint="Background every member's assistant knows about the organization.">
        <textarea id="org-info" aria-describedby="org-info-hint" value={info} onChange={(e) => setInfo(e.target.value)} readOnly={!canEdit} />
      </Field>
      {canEdit && (
        <button className={s.button} type="submit" disabled={pending}>
          Save general information
        </button>
      )}
      {status}
    </form>
  );
}
