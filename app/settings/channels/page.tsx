import { Time } from '@/app/_ui/time';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import { Badge } from '@/app/_ui/states';
import ui from '@/app/_ui/ui.module.css';
import { SettingsNav } from '../settings-nav';
import { MailboxSection } from './mailbox';
import { RequestPhoneLine } from './phone-line';
import { SlackAppSetup } from './slack-app-setup';
import { SlackLink } from './slack-link';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Connected channels · Settings · Steward' };

const LINE: Record<string, string> = { pending: 'Requested: waiting for your administrator', fulfilled: 'Connected', dismissed: 'Dismissed' };

/** Where the person reaches their assistants: Slack per assistant, a phone line, and their own mailbox. */
export default async function Channels() {
  const { api, me } = await requireSignedIn('/settings/channels');
  const [{ assistants }, { request }, mailbox] = await Promise.all([api.channels.assistants(), api.channels.phoneLine(), api.channels.mailbox()]);
  return (
    <HostedFrame me={me} title="Connected channels" width="wide">
      <Sectioned nav={<SettingsNav />}>
      <Section id="slack-title" title="Slack">
        {assistants.length === 0 ? (
          <p className={ui.muted}>You have no assistant yet.</p>
        ) : (
          <ul className={ui.list} aria-label="Slack per assistant">
            {assistants.map((a) => {
              const slack = (a as { slack?: { configured: boolean; connected: boolean; deepLinks: Record<string, string> } }).slack;
              return (
                <li key={a.id} className={ui.item}>
                  <div className={ui.itemHead}>
                    <p className={ui.itemTitle}>{a.name}</p>
                    <Badge tone={slack?.connected ? 'ok' : 'plain'}>{slack?.connected ? 'Linked to your Slack' : slack?.configured ? 'Not linked yet' : 'No Slack app'}</Badge>
                  </div>
                  {slack?.configured && !slack.connected && (
                    <p>
                      <SlackLink assistantId={a.id} name={a.name} />
                    </p>
                  )}
                  {slack?.connected && Object.entries(slack.deepLinks).length > 0 && (
                    <p>
                      {Object.entries(slack.deepLinks).map(([k, href]) => (
                        <a key={k} href={href}>
                          Open {a.name} in Slack ({k})
                        </a>
                      ))}
                    </p>
                  )}
                  {!slack?.configured && <p className={ui.muted}>Your administrator has not set up a Slack app for {a.name}.</p>}
                  <SlackAppSetup assistantId={a.id} name={a.name} />
                </li>
              );
            })}
          </ul>
        )}
      </Section>
      <Section id="phone-title" title="Phone line">
        {request ? (
          <p>
            <Badge tone={request.status === 'fulfilled' ? 'ok' : 'warn'}>{LINE[request.status] ?? request.status}</Badge> asked on <Time value={request.createdAt} /> for{' '}
            {Object.entries(request.requestedChannels)
              .filter(([, on]) => on)
              .map(([c]) => c)
              .join(', ') || 'no channel'}
            .{request.dismissalReason ? ` Reason: ${request.dismissalReason}` : ''}
          </p>
        ) : (
          <p className={ui.muted}>Your assistant has no phone line. Ask for one to text or call it.</p>
        )}
        {(!request || request.status === 'dismissed') && <RequestPhoneLine />}
      </Section>
      <Section id="mailbox-title" title="Mailbox">
        <MailboxSection mailbox={mailbox.mailbox} providers={mailbox.providers} />
      </Section>
    </Sectioned>
    </HostedFrame>
  );
}
