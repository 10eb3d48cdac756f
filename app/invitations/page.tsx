import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { InvitationsList } from './invitations-list';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Invitations · Steward' };

/** Where an invitation mail sends people: their pending organization invitations, to accept or decline. */
export default async function Invitations() {
  const { api, me } = await requireSignedIn('/invitations');
  const { invitations } = await api.organizations.invitations();
  return (
    <HostedFrame me={me} title="Invitations">
      {invitations.length ? (
        <InvitationsList invitations={invitations} />
      ) : (
        <p>You have no pending invitations. An invitation is addressed to one of your verified email addresses; sign in with that address to see it.</p>
      )}
    </HostedFrame>
  );
}
