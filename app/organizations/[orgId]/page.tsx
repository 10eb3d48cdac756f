import Link from 'next/link';
import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Pager, pageParam } from '@/app/_ui/pager';
import { CapabilitiesPanel } from './capabilities';
import { DomainsPanel } from './domains';
import { GeneralForm } from './general';
import { MembersPanel } from './members';
import { ScimPanel } from './scim';
import { SsoPanel } from './sso';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization settings · Steward' };

const PER_PAGE = 50;

export default async function OrganizationSettings({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { orgId } = await params;
  const page = pageParam((await searchParams).membersPage);
  const { api, me, ctx } = await requireSignedIn(`/organizations/${orgId}`);
  const { organization } = await readOrNotFound(api.organizations.get({ orgId }));
  // The services decide what this session may do; the page only shows it.
  const { canAdmin: isAdmin } = await readOrNotFound(api.organizations.permissions({ orgId }));
  const { members, total } = await api.organizations.members({ orgId, query: { page, perPage: PER_PAGE } });
  const [domains, sso, capabilities] = isAdmin
    ? await Promise.all([api.organizations.domains({ orgId }), api.organizations.sso({ orgId }), api.organizations.capabilities({ orgId })])
    : [null, null, null];
  return (
    <HostedFrame me={me} title={`${organization.name}: settings`}>
      {!isAdmin && <p>Only organization admins can change these settings.</p>}
      {isAdmin && (
        <p>
          <Link href={`/organizations/${orgId}/audit`}>Audit log: who changed what</Link>
        </p>
      )}
      <Section id="general" title="General information">
        <GeneralForm org={organization} canEdit={isAdmin} />
      </Section>
      <Section id="members" title="Members and roles">
        <MembersPanel orgId={orgId} members={members} total={total} canEdit={isAdmin} selfId={me.user.id} />
        <Pager label="Members" param="membersPage" page={page} perPage={PER_PAGE} total={total} />
      </Section>
      {domains && (
        <Section id="domains" title="Domains">
          <DomainsPanel orgId={orgId} domains={domains.domains} />
        </Section>
      )}
      {sso && (
        <>
          <Section id="sso" title="Single sign-on (SAML)">
            <SsoPanel orgId={orgId} settings={sso} />
          </Section>
          <Section id="scim" title="User provisioning (SCIM)">
            <ScimPanel orgId={orgId} scim={sso.scim as never} endpoint={`${ctx.site.origin}/api/scim/v2`} />
          </Section>
        </>
      )}
      {capabilities && (
        <Section id="capabilities" title="Capabilities">
          <CapabilitiesPanel orgId={orgId} view={capabilities} />
        </Section>
      )}
    </HostedFrame>
  );
}
