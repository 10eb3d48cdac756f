import { notFound } from 'next/navigation';
import { Section } from '@/app/_ui/field';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { CapabilitiesPanel } from '../capabilities';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization capabilities · Steward' };

export default async function OrganizationCapabilities({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const { api, me, organization, isAdmin } = await orgPage(orgId, '/capabilities');
  if (!isAdmin) notFound();
  const capabilities = await api.organizations.capabilities({ orgId });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="capabilities">
      <Section id="capabilities" title="Capabilities" description="What your members’ assistants may use. A lock stops teams and people from changing it.">
        <CapabilitiesPanel orgId={orgId} view={capabilities} />
      </Section>
    </OrgFrame>
  );
}
