import Link from 'next/link';
import { when } from '@/app/_lib/labels';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { Badge, Empty } from '@/app/_ui/states';
import ui from '@/app/_ui/ui.module.css';
import { NewChat } from './new-chat';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Chats · Steward' };

const PLATFORM: Record<string, string> = { chat: 'In the app', email: 'Email', slack: 'Slack', teams: 'Teams', sms: 'SMS', whatsapp: 'WhatsApp', imessage: 'iMessage', phone: 'Phone', task_activity: 'Task' };

/** The person's chats with their assistants, most recent first, on every platform. */
export default async function Chats() {
  const { api, me } = await requireSignedIn('/chats');
  const [{ chats }, { assistants }] = await Promise.all([api.chats.list({ perPage: 50 }), api.channels.roster()]);
  return (
    <HostedFrame me={me} title="Chats">
      <NewChat assistants={assistants.map((a) => ({ id: a.id, name: a.name }))} />
      {chats.length === 0 ? (
        <Empty title="No chats yet.">
          <p>Start one above: your assistant answers here, and can open tasks for you.</p>
        </Empty>
      ) : (
        <ul className={ui.list} aria-label="Your chats">
          {chats.map((c) => (
            <li key={c.id} className={ui.item}>
              <div className={ui.itemHead}>
                <h2 className={ui.itemTitle}>
                  <Link href={`/chats/${c.id}`}>{c.title ?? `Chat with ${c.assistantInfo.name ?? 'your assistant'}`}</Link>
                </h2>
                <Badge tone="accent">{PLATFORM[c.platform] ?? c.platform}</Badge>
              </div>
              <p className={ui.meta}>
                {c.assistantInfo.name ?? 'Assistant'} · {c.messageCount} messages{c.lastMessageAt ? ` · last ${when(c.lastMessageAt)}` : ''}
              </p>
            </li>
          ))}
        </ul>
      )}
    </HostedFrame>
  );
}
