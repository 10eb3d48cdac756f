'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Time } from '@/app/_ui/time';
import s from '@/app/_ui/hosted.module.css';
import type { TeamJoinRequest } from './types';

/**
 * People of the organization asking to join (team admins): approve moves them here, decline leaves
 * them where they are; both tell them. The switch decides whether people join at once.
 */
export function JoinRequestsPanel({ teamId, requests, approvalRequired }: { teamId: string; requests: TeamJoinRequest[]; approvalRequired: boolean }) {
  const { run, pending, status } = useAction();
  const [ask, setAsk] = useState(approvalRequired);
  return (
    <>
      <label className={s.check}>
        <input
          type="checkbox"
          checked={ask}
          disabled={pending}
          onChange={(e) => {
            const next = e.target.checked;
            setAsk(next);
            run(
              () => trpc.teams.update.mutate({ teamId, patch: { adminApprovalRequired: next } }),
              next ? 'People now ask before they join' : 'People of the organization now join at once',
            );
          }}
        />
        A team admin approves each person who asks to join
      </label>
      {requests.length === 0 ? (
        <p className={s.muted}>No one is waiting to join.</p>
      ) : (
        <ul aria-label="Requests to join">
          {requests.map((r) => (
            <li key={r.id}>
              <p>
                <strong>{r.user.name ?? r.user.email}</strong> ({r.user.email}) asked <Time value={r.createdAt} relative />
              </p>
              {r.message && <blockquote>{r.message}</blockquote>}
              <div className={s.row}>
                <button
                  className={s.button}
                  type="button"
                  disabled={pending}
                  onClick={() => run(() => trpc.teams.decideJoinRequest.mutate({ teamId, requestId: r.id, decision: 'approve' }), `${r.user.email} joined the team`)}
                >
                  Approve <span className="sr-only">{r.user.email}</span>
                </button>
                <button
                  className={s.secondary}
                  type="button"
                  disabled={pending}
                  onClick={() => run(() => trpc.teams.decideJoinRequest.mutate({ teamId, requestId: r.id, decision: 'decline' }), `Declined ${r.user.email}`)}
                >
                  Decline <span className="sr-only">{r.user.email}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {status}
    </>
  );
}
