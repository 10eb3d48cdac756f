import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Pager, pageParam } from '@/app/_ui/pager';
import { JoinRequestsPanel } from './join-requests';
import { TeamMembersPanel } from './members';
import { TeamMatrix } from './matrix';
import { PolicyPanel } from './policy';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Team settings · Steward' };

const PER_PAGE = 50;

export default async function TeamSettings({ params, searchParams }: { params: Promise<{ teamId: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { teamId } = await params;
  const page = pageParam((await searchParams).membersPage);
  const { api, me } = await requireSignedIn(`/teams/${teamId}`);
  const { team } = await readOrNotFound(api.teams.get({ teamId }));
  // The services decide what this session may do; the page only shows it.
  const { canAdmin, isOwner } = await readOrNotFound(api.teams.permissions({ teamId }));
  const { members, total } = await readOrNotFound(api.teams.members({ teamId, query: { page, perPage: PER_PAGE } }));
  // Invitations are listed once, on the first page.
  const invited = page === 1 ? (await api.teams.members({ teamId, query: { page: 1, perPage: 100, status: 'invited' } })).members : [];
  const all = [...members, ...invited.filter((i) => !members.some((m) => m.id === i.id))];
  const policy = canAdmin ? await api.teams.policy({ teamId }) : null;
  const requests = canAdmin && team.organization ? (await api.teams.joinRequests({ teamId, query: { page: 1, perPage: 100 } })).joinRequests : null;
  return (
    <HostedFrame me={me} title={`${team.name}: team settings`} width="wide">
      {!canAdmin && <p>Only team admins can change these settings.</p>}
      <Section id="team-members" title="Members, roles and invitations">
        {canAdmin ? (
          <TeamMembersPanel teamId={teamId} members={all} isOwner={isOwner} />
        ) : (
          <ul>
            {all.map((m) => (
              <li key={m.id}>
                {m.user.email} ({m.role})
              </li>
            ))}
          </ul>
        )}
        <Pager label="Members" param="membersPage" page={page} perPage={PER_PAGE} total={total} />
      </Section>
      {requests && (
        <Section id="team-join-requests" title="Requests to join" description="People of your organization who asked to join this team.">
          <JoinRequestsPanel teamId={teamId} requests={requests} approvalRequired={team.adminApprovalRequired} />
        </Section>
      )}
      {policy && (
        <>
          <Section id="team-matrix" title="Approval rules" description="How members’ assistants send each kind of action, unless a member chose a stricter rule.">
            <TeamMatrix teamId={teamId} policy={policy} />
          </Section>
          <Section id="team-policy" title="Capabilities">
            <PolicyPanel teamId={teamId} policy={policy} />
          </Section>
        </>
      )}
    </HostedFrame>
  );
}
