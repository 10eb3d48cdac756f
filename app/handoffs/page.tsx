import { LiveRefresh } from '@/app/_lib/live';
import { Time } from '@/app/_ui/time';
import Link from 'next/link';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { Badge, Empty } from '@/app/_ui/states';
import ui from '@/app/_ui/ui.module.css';
import { OpenHandoff } from './open-button';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Handoffs · Steward' };

const ACTION: Record<string, string> = { login: 'Sign in', mfa: 'One-time code', payment: 'Payment', form_fill: 'Fill in a form', other: 'Needs you' };

/** The person's open handoffs, oldest first: where the assistant's browser needs them. */
export default async function Handoffs() {
  const { api, me } = await requireSignedIn('/handoffs');
  const { handoffs } = await api.handoffs.list();
  return (
    <HostedFrame me={me} title="Handoffs" description="When a site needs you (a sign-in, a code, a payment), your assistant hands you its browser. Open it, do what is asked, then press Done.">
      <LiveRefresh topics={['needs']} />
      {handoffs.length === 0 ? (
        <Empty title="No handoff is waiting for you." />
      ) : (
        <ul className={ui.list} aria-label="Open handoffs">
          {handoffs.map((h) => (
            <li key={h.id} className={ui.item}>
              <div className={ui.itemHead}>
                <h2 className={ui.itemTitle}>{h.prompt || 'Your assistant needs you in the browser'}</h2>
                <Badge tone="warn">{ACTION[h.actionType] ?? h.actionType}</Badge>
              </div>
              <p className={ui.meta}>
                {h.targetUrl ? `At ${h.targetUrl} · ` : ''}open until <Time value={h.expiresAt} />
                {h.taskId && (
                  <>
                    {' · '}
                    <Link href={`/tasks/${h.taskId}`}>Open its task</Link>
                  </>
                )}
              </p>
              <OpenHandoff handoffId={h.id} label={h.prompt || 'this handoff'} />
            </li>
          ))}
        </ul>
      )}
    </HostedFrame>
  );
}
