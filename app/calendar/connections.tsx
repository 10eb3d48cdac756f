'use client';
import { CalendarClock, RefreshCw, Unplug } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Row, RowList } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';
import { accountOf, oauthConnectHref, PROVIDER_NAMES, STATUS, type Provider, type Status } from './labels';

export type Connection = {
  id: string;
  provider: Provider;
  url: string | null;
  username: string | null;
  status: Status;
  calendars: Array<{ id: string; name: string }>;
  lastSyncedAt: string | null;
  lastSyncError: string | null;
};

/**
 * The person's calendar connections: provider, account, state and last sync; a connection that
 * is failing or revoked says why and offers to connect it again (Google and Microsoft through
 * their consent page, CalDAV with a new app password in the form below); each can be disconnected.
 */
export function Connections({ connections, offers }: { connections: Connection[]; offers: { google: boolean; microsoft: boolean } }) {
  return (
    <RowList label="Calendar connections">
      {connections.map((c) => {
        const name = `${PROVIDER_NAMES[c.provider]} (${accountOf(c)})`;
        const status = STATUS[c.status];
        const broken = c.status !== 'active';
        const reconnect =
          c.provider === 'caldav' ? `/calendar?${new URLSearchParams({ reconnect: c.id })}#caldav-title` : offers[c.provider] ? oauthConnectHref(c.provider) : null;
        return (
          <Row
            key={c.id}
            data-testid="calendar-connection"
            titleAs="h3"
            lead={<CalendarClock aria-hidden="true" />}
            title={PROVIDER_NAMES[c.provider]}
            meta={
              <>
                <span className="[overflow-wrap:anywhere]">{accountOf(c)}</span>
                <span aria-hidden="true">·</span>
                <span>
                  {c.calendars.length} {c.calendars.length === 1 ? 'calendar' : 'calendars'}
                </span>
                {c.lastSyncedAt && (
                  <>
                    <span aria-hidden="true">·</span>
                    <span>
                      synced <Time value={c.lastSyncedAt} relative />
                    </span>
                  </>
                )}
              </>
            }
            trail={
              <>
                <Badge tone={status.tone}>{status.label}</Badge>
                {broken && reconnect && (
                  <Button asChild variant="secondary" size="sm">
                    <a href={reconnect} aria-label={`Reconnect ${name}`}>
                      <RefreshCw aria-hidden="true" />
                      Reconnect
                    </a>
                  </Button>
                )}
                <Disconnect id={c.id} name={name} />
              </>
            }
          >
            {broken && c.lastSyncError && (
              <p className="mt-1 text-sm text-danger [overflow-wrap:anywhere]">
                {c.status === 'revoked' ? 'Your assistant can no longer read this calendar: ' : 'The last sync failed: '}
                {c.lastSyncError}
              </p>
            )}
          </Row>
        );
      })}
    </RowList>
  );
}

function Disconnect({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      title={`Disconnect ${name}?`}
      description="Your assistant stops reading these calendars at once and forgets their events. Nothing is deleted in the calendars themselves."
      trigger={
        <Button variant="ghost" size="icon" aria-label={`Disconnect ${name}`}>
          <Unplug aria-hidden="true" />
        </Button>
      }
    >
      <div className="flex justify-end gap-2">
        <DialogClose asChild>
          <Button variant="secondary">Keep</Button>
        </DialogClose>
        <Button
          variant="danger"
          disabled={pending}
          onClick={async () => {
            setPending(true);
            try {
              await trpc.calendar.disconnect.mutate({ connectionId: id });
              notify('ok', `Disconnected ${name}.`);
              router.refresh();
            } catch (err) {
              notify('error', describeError(err).message);
            } finally {
              setPending(false);
            }
          }}
        >
          Disconnect
        </Button>
      </div>
    </Dialog>
  );
}
