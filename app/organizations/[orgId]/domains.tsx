'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { OrgDomain } from './types';

/** Domains: the TXT record to publish for each, a verify button, and autoJoin. */
export function DomainsPanel({ orgId, domains }: { orgId: string; domains: OrgDomain[] }) {
  const [domain, setDomain] = useState('');
  const { run, pending, status } = useAction();
  return (
    <>
      {domains.length === 0 && <p className={s.muted}>No domains yet.</p>}
      <ul aria-label="Domains">
        {domains.map((d) => (
          <li key={d.id} style={{ marginBottom: '0.75rem' }}>
            <strong>{d.domain}</strong> — {d.verified ? <span className={s.ok}>verified</span> : <span>not verified</span>}
            {d.source === 'sso' && <span className={s.muted}> (managed by SSO)</span>}
            {!d.verified && (
              <div>
                <p>
                  Publish a DNS TXT record named <code className={s.code}>{d.txtRecordName}</code> with the value <code className={s.code}>{d.txtRecordValue}</code>, then verify.
                </p>
                <button className={s.button} type="button" disabled={pending} onClick={() => run(() => trpc.organizations.verifyDomain.mutate({ orgId, domainId: d.id }), `${d.domain} is verified`)}>
                  Verify <span className="sr-only">{d.domain}</span>
                </button>
              </div>
            )}
            {d.source === 'manual' && (
              <label className={s.check}>
                <input
                  type="checkbox"
                  checked={d.autoJoin}
                  disabled={pending}
                  onChange={(e) => run(() => trpc.organizations.updateDomain.mutate({ orgId, domainId: d.id, patch: { autoJoin: e.target.checked } }), 'Saved')}
                />
                People at {d.domain} join automatically
              </label>
            )}
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run(() => trpc.organizations.addDomain.mutate({ orgId, domain: { domain } }), `Added ${domain}`, () => setDomain(''));
        }}
      >
        <div className={s.row}>
          <Field id="new-domain" label="Add a domain" hint="For example example.org">
            <input id="new-domain" aria-describedby="new-domain-hint" required value={domain} onChange={(e) => setDomain(e.target.value)} />
          </Field>
          <button className={s.button} type="submit" disabled={pending}>
            Add domain
          </button>
        </div>
      </form>
      {status}
    </>
  );
}
