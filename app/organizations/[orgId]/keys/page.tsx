import { notFound } from 'next/navigation';
import { Section } from '@/app/_ui/field';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { OrgKeys } from './org-keys';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization API keys · Steward' };

export default async function OrganizationKeys({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const { api, me, organization, isAdmin } = await orgPage(orgId, '/keys');
  if (!isAdmin) notFound();
  const { apiKeys } = await api.organizations.keys({ orgId, query: { perPage: 100 } });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="API keys">
      <Section id="keys" title="Organization API keys" description="Keys that act for the organization: its members and teams, and no one outside it." bare>
        <OrgKeys orgId={orgId} keys={apiKeys} />
      </Section>
    </OrgFrame>
  );
}
