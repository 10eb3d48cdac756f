import { MessageSquare } from 'lucide-react';
import { LiveRefresh } from '@/app/_lib/live';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Avatar } from '@/app/_ui/avatar';
import { HostedFrame } from '@/app/_ui/layout';
import { Row, RowList } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { NewChat } from './new-chat';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Chats · Steward' };

const PLATFORM: Record<string, string> = { chat: 'In the app', email: 'Email', slack: 'Slack', teams: 'Teams', sms: 'SMS', whatsapp: 'WhatsApp', imessage: 'iMessage', phone: 'Phone', task_activity: 'Task' };

/** The person's chats with their assistants, most recent first, on every platform; live. */
export default async function Chats() {
  const { api, me } = await requireSignedIn('/chats');
  const [{ chats }, { assistants }] = await Promise.all([api.chats.list({ perPage: 50 }), api.channels.roster()]);
  return (
    <HostedFrame me={me} title="Chats" width="wide">
      <LiveRefresh topics={['chats']} />
      <NewChat assistants={assistants.map((a) => ({ id: a.id, name: a.name }))} />
      {chats.length === 0 ? (
        <Empty title="No chats yet." icon={MessageSquare}>
          <p>Start one above: your assistant answers here, and can open tasks for you.</p>
        </Empty>
      ) : (
        <RowList label="Your chats">
          {chats.map((c) => (
            <Row
              key={c.id}
              titleAs="h2"
              lead={<Avatar name={c.assistantInfo.name ?? 'Assistant'} size="sm" />}
              title={c.title ?? `Chat with ${c.assistantInfo.name ?? 'your assistant'}`}
              href={`/chats/${c.id}`}
              meta={
                <>
                  <span>{c.assistantInfo.name ?? 'Assistant'}</span>
                  {c.lastMessageAt && (
                    <>
                      <span aria-hidden="true">·</span>
                      <Time value={c.lastMessageAt} />
                    </>
                  )}
                </>
              }
              trail={c.platform !== 'chat' ? <Badge tone="accent">{PLATFORM[c.platform] ?? c.platform}</Badge> : undefined}
            />
          ))}
        </RowList>
      )}
    </HostedFrame>
  );
}
