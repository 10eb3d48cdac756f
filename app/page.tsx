import { ArrowRight, MessageSquare } from 'lucide-react';
import Link from 'next/link';
import { appRouter } from '@/server/trpc/app-router';
import { requestContext } from './_lib/server-caller';
import { InboxView } from './_inbox/inbox-view';
import { LiveRefresh } from './_lib/live';
import { AuthShell } from './_ui/auth-shell';
import { Button } from './_ui/button';
import { HostedFrame } from './_ui/layout';
import { Row, RowList } from './_ui/list';
import { Time } from './_ui/time';
import { TaskRow } from './tasks/task-row';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Home · Steward' };

/** The signed-in person, what needs them and their latest work, or null when signed out (or no hosted app answers here). */
async function signedIn() {
  try {
    const api = appRouter.createCaller(await requestContext());
    // All at once, not the reads after auth.me: signed out, the person's reads refuse (caught below)
    // and the answer is the front page either way; signed in, the page waits for one round trip fewer.
    const [me, needs, { tasks }, { chats }, { assistants }] = await Promise.all([api.auth.me(), api.inbox.list({ limit: 10 }), api.tasks.list({ perPage: 5 }), api.chats.list({ perPage: 5 }), api.channels.roster()]);
    if (!me) return null;
    return { me, needs, tasks, chats, assistants };
  } catch {
    // No hosted app on this domain (or no account yet): the front page.
    return null;
  }
}

const firstName = (name: string | null, email: string) => (name ?? email).split(/[\s@]/)[0];

export default async function Home() {
  const signed = await signedIn();
  if (!signed)
    return (
      <AuthShell title="Your assistant, at work for you" footer={<a href="/docs">For developers: the API reference</a>}>
        <p className="mb-5 text-muted">It answers your mail, books your appointments and keeps your tasks moving, and it asks before it sends anything in your name.</p>
        <Button asChild className="w-full justify-center">
          <Link href="/sign-in">
            Sign in <ArrowRight aria-hidden="true" />
          </Link>
        </Button>
      </AuthShell>
    );
  const { me, needs, tasks, chats, assistants } = signed;
  const names = new Map(assistants.map((a) => [a.id, a.name]));
  return (
    <HostedFrame
      me={me}
      title={`Welcome, ${firstName(me.user.name, me.user.email)}`}
      needsMe={needs.total}
      width="full"
      description={me.organization ? `${me.organization.name}` : undefined}
      actions={
        <Button asChild variant="secondary">
          <Link href="/chats">
            <MessageSquare aria-hidden="true" />
            Talk to your assistant
          </Link>
        </Button>
      }
    >
      <LiveRefresh topics={['tasks', 'chats']} />
      <InboxView initial={needs.items} total={needs.total} />
      <div className="mt-8 grid gap-6 xl:grid-cols-2">
        <section aria-labelledby="recent-tasks">
          <div className="mb-2 flex items-center justify-between">
            <h2 id="recent-tasks">Latest tasks</h2>
            <Link href="/tasks" className="inline-flex min-h-11 items-center text-sm">
              All tasks
            </Link>
          </div>
          {tasks.length ? (
            <RowList label="Latest tasks">
              {tasks.map((t) => (
                <TaskRow key={t.id} task={t} assistant={names.get(t.assistant) ?? 'Assistant'} titleAs="h3" />
              ))}
            </RowList>
          ) : (
            <p className="text-muted">No tasks yet.</p>
          )}
        </section>
        <section aria-labelledby="recent-chats">
          <div className="mb-2 flex items-center justify-between">
            <h2 id="recent-chats">Latest chats</h2>
            <Link href="/chats" className="inline-flex min-h-11 items-center text-sm">
              All chats
            </Link>
          </div>
          {chats.length ? (
            <RowList label="Latest chats">
              {chats.map((c) => (
                <Row key={c.id} titleAs="h3" title={c.title ?? `Chat with ${c.assistantInfo.name ?? 'your assistant'}`} href={`/chats/${c.id}`} meta={c.lastMessageAt ? <Time value={c.lastMessageAt} /> : 'No messages yet'} />
              ))}
            </RowList>
          ) : (
            <p className="text-muted">No chats yet.</p>
          )}
        </section>
      </div>
    </HostedFrame>
  );
}
