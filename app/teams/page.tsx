import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { JoinList } from './join-list';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Join a team · Steward' };

/** The teams of the person's organization they are not on: ask to join (or join, where no admin approves), and withdraw a request. */
export default async function JoinATeam() {
  const { api, me } = await requireSignedIn('/teams');
  if (!me.organization || me.organization.role === 'guest') {
    return (
      <HostedFrame me={me} title="Join a team">
        <p>
          {me.organization
            ? 'As a guest of your organization, you join a team when one of its admins adds you.'
            : 'Teams to join are those of your organization, and you are not in one. An organization admin can invite you.'}
        </p>
      </HostedFrame>
    );
  }
  const [{ teams }, { joinRequests }] = await Promise.all([api.teams.joinable(), api.teams.myJoinRequests()]);
  return (
    <HostedFrame me={me} title="Join a team" description={`Teams of ${me.organization.name} you are not on. Joining one moves you there: you leave your current team.`}>
      {teams.length ? <JoinList teams={teams} requests={joinRequests} /> : <p>There is no other team in your organization yet.</p>}
    </HostedFrame>
  );
}
