import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import ui from '@/app/_ui/ui.module.css';
import { SettingsNav } from '../settings-nav';
import { Exceptions } from './exceptions';
import { MatrixGrid } from './matrix';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Autonomy · Settings · Steward' };

/** How much the assistants may do without asking: the matrix, its locks, and recipient exceptions. */
export default async function Autonomy() {
  const { api, me } = await requireSignedIn('/settings/autonomy');
  const [{ supervisionMatrix }, { recipientExceptions }] = await Promise.all([api.settings.matrix(), api.settings.exceptions()]);
  return (
    <HostedFrame me={me} title="Autonomy" width="wide">
      <Sectioned nav={<SettingsNav />}>
      <p className={ui.muted}>
        For each kind of action, choose whether your assistant sends at once (with a short undo delay), waits a review window first, or waits for your approval. A lock set by your company,
        organization or team can be made stricter here, never looser.
      </p>
      <Section id="matrix-title" title="When your assistants may act">
        <MatrixGrid matrix={supervisionMatrix} />
      </Section>
      <Section id="exceptions-title" title="Recipient exceptions">
        <Exceptions exceptions={recipientExceptions} />
      </Section>
    </Sectioned>
    </HostedFrame>
  );
}
