'use client';
import { trpc } from '@/app/_lib/trpc-client';
import s from '@/app/_ui/hosted.module.css';
import { Badge } from '@/app/_ui/states';
import type { MailboxProvider } from '@/db/schema/channel-names';
import { useSave } from '../use-save';

type Mailbox = { provider: MailboxProvider; address: string; authError: boolean; lastSyncedAt: string | null } | null;

const NAMES = { gmail: 'Gmail', outlook: 'Microsoft 365' } as const;

/**
 * The person's own mailbox: connected (with its address, and a reconnect when the provider
 * refused the grant) or not, with a connect link per provider the deployment offers. The links
 * start the OAuth flow with the person's session (GET /api/oauth/mailbox/connect) and come back here.
 */
export function MailboxSection({ mailbox, providers }: { mailbox: Mailbox; providers: { gmail: boolean; outlook: boolean } }) {
  const { pending, save } = useSave();
  const offered = (Object.keys(NAMES) as Array<keyof typeof NAMES>).filter((p) => providers[p]);
  const connect = (p: keyof typeof NAMES, label: string) => (
    <a key={p} className={s.button} href={`/api/oauth/mailbox/connect?provider=${p}&returnTo=${encodeURIComponent('/settings/channels')}`}>
      {label}
    </a>
  );
  if (mailbox) {
    return (
      <>
        <p>
          <Badge tone={mailbox.authError ? 'warn' : 'ok'}>{mailbox.authError ? 'Needs reconnecting' : 'Connected'}</Badge> {NAMES[mailbox.provider]}: {mailbox.address}
        </p>
        <p>Your assistant reads new mail there and sends mail you approve as yours from it, so it lands in your Sent folder.</p>
        <p>
          {mailbox.authError && connect(mailbox.provider, `Reconnect ${NAMES[mailbox.provider]}`)}{' '}
          <button className={s.button} type="button" disabled={pending} onClick={() => void save(() => trpc.channels.disconnectMailbox.mutate(), 'Mailbox disconnected.')}>
            Disconnect
          </button>
        </p>
      </>
    );
  }
  return (
    <>
      <p>
        <Badge>Not connected</Badge> Connect your own mailbox so your assistant can read your mail and send mail you approve as yours.
      </p>
      {offered.length ? <p>{offered.map((p) => connect(p, `Connect ${NAMES[p]}`))}</p> : <p>Your administrator has not set up mailbox connections for this app.</p>}
    </>
  );
}
