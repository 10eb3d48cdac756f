'use client';
import { CalendarClock, RefreshCw, Unplug } from 'lucide-react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { ConfirmRemoval } from '@/app/_ui/confirm-removal';
import { Row, RowList } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
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
  return (
    <ConfirmRemoval
      title={`Disconnect ${name}?`}
      description="Your assistant stops reading these calendars at once and forgets their events. Nothing is deleted in the calendars themselves."
      label={`Disconnect ${name}`}
      icon={<Unplug aria-hidden="true" />}
      action="Disconnect"
      run={() => trpc.calendar.disconnect.mutate({ connectionId: id })}
      done={`Disconnected ${name}.`}
    />
  );
}
