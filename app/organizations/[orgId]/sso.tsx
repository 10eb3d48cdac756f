'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { SsoSettings } from './types';

type Saml = { entryPoint?: string | null; logoutUrl?: string | null; issuer?: string | null; allowIdpInitiated?: boolean; hasCertificate?: boolean; attributeMapping?: Record<string, string>; groupFilter?: { enabled?: boolean; allowedGroups?: string[]; requireAll?: boolean }; groupRoleMapping?: Array<{ group: string; role: 'admin' | 'member' }> };
type Sso = { enabled?: boolean; enforced?: boolean; saml?: Saml; memberSync?: { autoProvision?: boolean } } | null;

const ATTRS = ['email', 'firstName', 'lastName', 'groups'] as const;

/** SSO configuration, with the service-provider values to register in the IdP. */
export function SsoPanel({ orgId, settings }: { orgId: string; settings: SsoSettings }) {
  const sso = settings.sso as Sso;
  const saml = sso?.saml ?? {};
  const [enabled, setEnabled] = useState(Boolean(sso?.enabled));
  const [enforced, setEnforced] = useState(Boolean(sso?.enforced));
  const [entryPoint, setEntryPoint] = useState(saml.entryPoint ?? '');
  const [issuer, setIssuer] = useState(saml.issuer ?? '');
  const [logoutUrl, setLogoutUrl] = useState(saml.logoutUrl ?? '');
  const [certificate, setCertificate] = useState('');
  const [metadataXml, setMetadataXml] = useState('');
  const [idpInitiated, setIdpInitiated] = useState(Boolean(saml.allowIdpInitiated));
  const [autoProvision, setAutoProvision] = useState(sso?.memberSync?.autoProvision ?? true);
  const [mapping, setMapping] = useState<Record<string, string>>({ email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups', ...saml.attributeMapping });
  const [filterOn, setFilterOn] = useState(Boolean(saml.groupFilter?.enabled));
  const [groups, setGroups] = useState((saml.groupFilter?.allowedGroups ?? []).join(', '));
  const [requireAll, setRequireAll] = useState(Boolean(saml.groupFilter?.requireAll));
  const [roles, setRoles] = useState((saml.groupRoleMapping ?? []).map((m) => `${m.group}=${m.role}`).join('\n'));
  const { run, pending, status } = useAction();

  function save(e: React.FormEvent) {
    e.preventDefault();
    const groupRoleMapping = roles
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => {
        const [group, role] = l.split('=').map((x) => x.trim());
        return { group, role: (role === 'admin' ? 'admin' : 'member') as 'admin' | 'member' };
      });
    run(
      () =>
        trpc.organizations.putSso.mutate({
          orgId,
          sso: {
            enabled,
            enforced,
            provider: 'saml_generic',
            saml: {
              ...(metadataXml.trim() ? { metadataXml } : {}),
              ...(entryPoint.trim() ? { entryPoint: entryPoint.trim() } : {}),
              ...(issuer.trim() ? { issuer: issuer.trim() } : {}),
              ...(logoutUrl.trim() ? { logoutUrl: logoutUrl.trim() } : {}),
              ...(certificate.trim() ? { certificate } : {}),
              allowIdpInitiated: idpInitiated,
              attributeMapping: mapping,
              groupFilter: { enabled: filterOn, allowedGroups: groups.split(',').map((g) => g.trim()).filter(Boolean), requireAll },
              groupRoleMapping,
            },
            memberSync: { autoProvision },
          },
        }),
      'SSO settings saved',
      () => {
        setCertificate('');
        setMetadataXml('');
      },
    );
  }

  return (
    <>
      <h3>Register these values in your identity provider</h3>
      <dl>
        <dt>Entity id (and metadata URL)</dt>
        <dd>
          <code className={s.code}>{settings.sp.entityId}</code>
        </dd>
        <dt>ACS URL (assertion consumer service)</dt>
        <dd>
          <code className={s.code}>{settings.sp.acsUrl}</code>
        </dd>
        <dt>Single logout URL</dt>
        <dd>
          <code className={s.code}>{settings.sp.sloUrl}</code>
        </dd>
        <dt>Attributes</dt>
        <dd>email, first name, last name, optionally groups</dd>
      </dl>
      <form onSubmit={save} aria-label="SSO configuration">
        <div className={s.row}>
          <Field id="sso-entry" label="IdP sign-on URL (entry point)">
            <input id="sso-entry" type="url" value={entryPoint} onChange={(e) => setEntryPoint(e.target.value)} />
          </Field>
          <Field id="sso-issuer" label="IdP entity id (issuer)">
            <input id="sso-issuer" value={issuer} onChange={(e) => setIssuer(e.target.value)} />
          </Field>
          <Field id="sso-logout" label="IdP logout URL (optional)">
            <input id="sso-logout" type="url" value={logoutUrl} onChange={(e) => setLogoutUrl(e.target.value)} />
          </Field>
        </div>
        <Field id="sso-cert" label="IdP signing certificate (PEM)" hint={saml.hasCertificate ? 'A certificate is stored (never shown). Paste a new one to replace it.' : 'Paste the certificate the IdP signs responses with (during a rotation, the current and the next one).'}>
          <textarea id="sso-cert" aria-describedby="sso-cert-hint" value={certificate} onChange={(e) => setCertificate(e.target.value)} />
        </Field>
        <Field id="sso-metadata" label="Or paste the IdP metadata XML" hint="Fills the sign-on URL, entity id and certificate.">
          <textarea id="sso-metadata" aria-describedby="sso-metadata-hint" value={metadataXml} onChange={(e) => setMetadataXml(e.target.value)} />
        </Field>
        <fieldset>
          <legend>Attribute names</legend>
          <div className={s.row}>
            {ATTRS.map((a) => (
              <Field key={a} id={`sso-attr-${a}`} label={`${a} attribute`}>
                <input id={`sso-attr-${a}`} value={mapping[a] ?? ''} onChange={(e) => setMapping({ ...mapping, [a]: e.target.value })} />
              </Field>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Groups</legend>
          <label className={s.check}>
            <input type="checkbox" checked={filterOn} onChange={(e) => setFilterOn(e.target.checked)} /> Only people in these groups may sign in
          </label>
          <Field id="sso-groups" label="Allowed groups (comma-separated)">
            <input id="sso-groups" value={groups} onChange={(e) => setGroups(e.target.value)} />
          </Field>
          <label className={s.check}>
            <input type="checkbox" checked={requireAll} onChange={(e) => setRequireAll(e.target.checked)} /> Require all of them
          </label>
          <Field id="sso-roles" label="Group to role, one per line (group=admin or group=member)" hint="Sets the organization role at each sign-in; the first matching line wins.">
            <textarea id="sso-roles" aria-describedby="sso-roles-hint" value={roles} onChange={(e) => setRoles(e.target.value)} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Sign-in</legend>
          <label className={s.check}>
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> SSO enabled for the verified domains
          </label>
          <label className={s.check}>
            <input type="checkbox" checked={enforced} onChange={(e) => setEnforced(e.target.checked)} /> Enforced: no other sign-in method for these people
          </label>
          <label className={s.check}>
            <input type="checkbox" checked={idpInitiated} onChange={(e) => setIdpInitiated(e.target.checked)} /> Allow sign-in started from the IdP dashboard
          </label>
          <label className={s.check}>
            <input type="checkbox" checked={autoProvision} onChange={(e) => setAutoProvision(e.target.checked)} /> Create people on their first sign-in
          </label>
        </fieldset>
        <div className={s.row}>
          <button className={s.button} type="submit" disabled={pending}>
            Save SSO settings
          </button>
          {sso && (
            <button className={s.danger} type="button" disabled={pending} onClick={() => run(() => trpc.organizations.deleteSso.mutate({ orgId }), 'SSO removed (and the SCIM token with it)')}>
              Remove SSO
            </button>
          )}
        </div>
      </form>
      {status}
    </>
  );
}
