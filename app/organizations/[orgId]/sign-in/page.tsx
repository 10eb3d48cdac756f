import { notFound } from 'next/navigation';
import { Section } from '@/app/_ui/field';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { ScimPanel } from '../scim';
import { SsoPanel } from '../sso';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Sign-in and provisioning · Steward' };

export default async function OrganizationSignIn({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const { api, me, ctx, organization, isAdmin } = await orgPage(orgId, '/sign-in');
  if (!isAdmin) notFound();
  const sso = await api.organizations.sso({ orgId });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="sign-in and provisioning">
      <Section id="sso" title="Single sign-on (SAML)">
        <SsoPanel orgId={orgId} settings={sso} />
      </Section>
      <Section id="scim" title="User provisioning (SCIM)">
        <ScimPanel orgId={orgId} scim={sso.scim as never} endpoint={`${ctx.site.origin}/api/scim/v2`} />
      </Section>
    </OrgFrame>
  );
}
