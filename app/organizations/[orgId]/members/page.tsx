import { Section } from '@/app/_ui/field';
import { Pager, pageParam } from '@/app/_ui/pager';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { MembersPanel } from '../members';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Organization members · Steward' };

const PER_PAGE = 50;

export default async function OrganizationMembers({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { orgId } = await params;
  const page = pageParam((await searchParams).membersPage);
  const { api, me, organization, isAdmin } = await orgPage(orgId, '/members');
  const { members, total } = await api.organizations.members({ orgId, query: { page, perPage: PER_PAGE } });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="members">
      <Section id="members" title="Members and roles">
        <MembersPanel orgId={orgId} members={members} total={total} canEdit={isAdmin} selfId={me.user.id} />
        <Pager label="Members" param="membersPage" page={page} perPage={PER_PAGE} total={total} />
      </Section>
    </OrgFrame>
  );
}
