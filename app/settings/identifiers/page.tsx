import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import ui from '@/app/_ui/ui.module.css';
import { SettingsNav } from '../settings-nav';
import { AddIdentifier } from './add-identifier';
import { IdentifierRow } from './identifier-row';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Emails and phones · Settings · Steward' };

/** The person's emails and phones; only a verified one identifies them (mail they send, texts, act-as). */
export default async function Identifiers() {
  const { api, me } = await requireSignedIn('/settings/identifiers');
  const { identifiers } = await api.identifiers.list();
  const shown = identifiers.filter((i) => i.type === 'email' || i.type === 'phone');
  return (
    <HostedFrame me={me} title="Emails and phones" width="wide">
      <Sectioned nav={<SettingsNav />}>
      <p className={ui.muted}>Your assistants recognise you by these. A new one counts once you prove it is yours with the code it receives.</p>
      <Section id="ids-title" title="Yours">
        <ul className={ui.list} aria-label="Your emails and phones">
          {shown.map((i) => (
            <IdentifierRow key={`${i.id}-${i.verified}-${i.primary}`} identifier={i} />
          ))}
        </ul>
      </Section>
      <Section id="add-id-title" title="Add one">
        <AddIdentifier />
      </Section>
    </Sectioned>
    </HostedFrame>
  );
}
