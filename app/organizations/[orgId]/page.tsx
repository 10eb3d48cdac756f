import { Section } from '@/app/_ui/field';
import { OrgFrame, orgPage } from './_ui/org-frame';
import { GeneralForm } from './general';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization settings · Steward' };

/** The organization's general information; its other sections have their own pages (OrgNav). */
export default async function OrganizationSettings({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const { me, organization, isAdmin } = await orgPage(orgId, '');
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="settings">
      <Section id="general" title="General information">
        <GeneralForm org={organization} canEdit={isAdmin} />
      </Section>
    </OrgFrame>
  );
}
