import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import ui from '@/app/_ui/ui.module.css';
import { SettingsNav } from '../settings-nav';
import { CreateKey, KeyList } from './keys';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'API keys · Settings · Steward' };

/** Keys that act as the person, for their own scripts and tools. */
export default async function ApiKeys() {
  const { api, me } = await requireSignedIn('/settings/api-keys');
  const { apiKeys } = await api.apiKeys.list({ perPage: 100 });
  return (
    <HostedFrame me={me} title="API keys" width="wide">
      <Sectioned nav={<SettingsNav />}>
      <p className={ui.muted}>A key acts as you through the API, with the access you give it. Keep it secret; revoke it when it is no longer needed.</p>
      <Section id="new-key-title" title="Create a key">
        <CreateKey />
      </Section>
      <Section id="keys-title" title="Your keys">
        <KeyList keys={apiKeys} />
      </Section>
    </Sectioned>
    </HostedFrame>
  );
}
