import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import { HoursForm } from './hours-form';
import { DesktopNoticesToggle } from './desktop-notices-toggle';
import { NotificationsForm } from './notifications-form';
import { ProfileForm } from './profile-form';
import { SettingsNav } from './settings-nav';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Settings · Steward' };

/** Who the person is to their assistants: names, timezone, working hours, how they are told things. */
export default async function Settings() {
  const { api, me } = await requireSignedIn('/settings');
  const [{ user }, scheduling] = await Promise.all([api.settings.profile(), api.settings.scheduling()]);
  const prefs = user.preferences as { notifications?: { channel: string; quietHours: boolean }; email?: { enabled: boolean }; slack?: { enabled: boolean }; teams?: { enabled: boolean }; desktop?: { enabled: boolean } } | undefined;
  return (
    <HostedFrame me={me} title="Settings" width="wide">
      <Sectioned nav={<SettingsNav />}>
      <Section id="profile-title" title="Profile">
        <ProfileForm initial={{ firstName: user.firstName ?? '', lastName: user.lastName ?? '', timezone: user.timezone }} />
      </Section>
      <Section id="hours-title" title="Working hours">
        <HoursForm initial={scheduling.schedulingPreferences} saved={scheduling.workingHoursSaved} timezone={user.timezone} />
      </Section>
      <Section id="notifications-title" title="Notifications">
        <NotificationsForm
          initial={{
            channel: prefs?.notifications?.channel ?? 'email',
            quietHours: prefs?.notifications?.quietHours ?? true,
            enabled: { email: prefs?.email?.enabled !== false, slack: prefs?.slack?.enabled !== false, teams: prefs?.teams?.enabled !== false },
          }}
        />
        <DesktopNoticesToggle initial={prefs?.desktop?.enabled === true} />
      </Section>
    </Sectioned>
    </HostedFrame>
  );
}
