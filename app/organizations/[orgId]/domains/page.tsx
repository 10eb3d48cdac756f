import { notFound } from 'next/navigation';
import { Section } from '@/app/_ui/field';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { DomainsPanel } from '../domains';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization domains · Steward' };

export default async function OrganizationDomains({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const { api, me, organization, isAdmin } = await orgPage(orgId, '/domains');
  if (!isAdmin) notFound();
  const { domains } = await api.organizations.domains({ orgId });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="domains">
      <Section id="domains" title="Domains" description="Verified domains let people sign in with single sign-on and join the organization.">
        <DomainsPanel orgId={orgId} domains={domains} />
      </Section>
    </OrgFrame>
  );
}
