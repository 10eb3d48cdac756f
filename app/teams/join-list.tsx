'use client';
import type { inferRouterOutputs } from '@trpc/server';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import s from '@/app/_ui/hosted.module.css';
import type { AppRouter } from '@/server/trpc/app-router';

type Out = inferRouterOutputs<AppRouter>['teams'];
type Team = Out['joinable']['teams'][number];
type Request = Out['myJoinRequests']['joinRequests'][number];

/** One line per team: join at once, ask (a team admin approves), or the request already waiting, with a way to take it back. */
export function JoinList({ teams, requests }: { teams: Team[]; requests: Request[] }) {
  const { run, pending, status } = useAction();
  return (
    <>
      <ul aria-label="Teams you can join">
        {teams.map((t) => {
          const waiting = requests.find((r) => r.team.id === t.id);
          return (
            <li key={t.id} className={s.row}>
              <strong>{t.name}</strong>
              {waiting ? (
                <>
                  <span className={s.muted}>Asked; a team admin decides</span>
                  <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.teams.withdrawJoinRequest.mutate({ teamId: t.id, requestId: waiting.id }), `Request to join ${t.name} withdrawn`)}>
                    Withdraw <span className="sr-only">the request to join {t.name}</span>
                  </button>
                </>
              ) : (
                <button
                  className={s.button}
                  type="button"
                  disabled={pending}
                  onClick={() =>
                    run(
                      () => trpc.teams.askToJoin.mutate({ teamId: t.id }),
                      (r) => (r.joinRequest.status === 'approved' ? `You joined ${t.name}` : `Asked to join ${t.name}: its admins will decide`),
                    )
                  }
                >
                  {t.adminApprovalRequired ? 'Ask to join' : 'Join'} <span className="sr-only">{t.name}</span>
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {status}
    </>
  );
}
