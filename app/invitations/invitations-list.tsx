'use client';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import s from '@/app/_ui/hosted.module.css';

type Invitation = { id: string; organization: { id: string; name: string }; email: string; createdAt: string };

/** Each invitation with its two answers; accepting makes the person a member right away. */
export function InvitationsList({ invitations }: { invitations: Invitation[] }) {
  const { run, pending, status } = useAction();
  return (
    <>
      <ul aria-label="Pending invitations">
        {invitations.map((i) => (
          <li key={i.id}>
            <p>
              <strong>{i.organization.name}</strong> invited {i.email} on {new Date(i.createdAt).toLocaleDateString()}.
            </p>
            <div className={s.row}>
              <button className={s.button} type="button" disabled={pending} onClick={() => run(() => trpc.organizations.acceptInvitation.mutate({ invitationId: i.id }), `You joined ${i.organization.name}`)}>
                Accept <span className="sr-only">the invitation to {i.organization.name}</span>
              </button>
              <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.organizations.declineInvitation.mutate({ invitationId: i.id }), `You declined ${i.organization.name}`)}>
                Decline <span className="sr-only">the invitation to {i.organization.name}</span>
              </button>
            </div>
          </li>
        ))}
      </ul>
      {status}
    </>
  );
}
