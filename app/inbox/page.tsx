import { requireSignedIn } from '@/app/_lib/server-caller';
import { InboxView } from '@/app/_inbox/inbox-view';
import { INBOX_PAGE } from '@/app/_inbox/page-size';
import { HostedFrame } from '@/app/_ui/layout';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Inbox · Steward' };

/** Everything that waits on the person, once each, most pressing first; live, keyboard first. */
export default async function Inbox() {
  const { api, me } = await requireSignedIn('/inbox');
  const needs = await api.inbox.list({ limit: INBOX_PAGE });
  return (
    <HostedFrame me={me} title="Inbox" needsMe={needs.total} width="full" description="Approve, answer and decide here: what your assistants wait on you for, most pressing first.">
      <InboxView initial={needs.items} total={needs.total} />
    </HostedFrame>
  );
}
