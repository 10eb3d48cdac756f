'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from './use-save';

/**
 * preferences.desktop.enabled: turning it on first asks the browser's permission (a person's click is
 * the only moment a browser lets a page ask); refused, nothing is saved and the person is told why.
 */
export function DesktopNoticesToggle({ initial }: { initial: boolean }) {
  const [on, setOn] = useState(initial);
  const { pending, save } = useSave();
  const notify = useNotify();
  const change = async (next: boolean) => {
    if (next) {
      if (typeof Notification === 'undefined') return notify('error', 'This browser has no desktop notifications.');
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') return notify('error', 'The browser did not allow notifications for this site: allow them in its site settings, then try again.');
    }
    if (await save(() => trpc.settings.updateProfile.mutate({ preferences: { desktop: { enabled: next } } }), next ? 'Desktop notifications are on in this browser.' : 'Desktop notifications are off.')) setOn(next);
  };
  return (
    <label className={s.check}>
      <input type="checkbox" checked={on} disabled={pending} onChange={(e) => void change(e.target.checked)} /> Desktop notifications while Steward is open in a tab
    </label>
  );
}
