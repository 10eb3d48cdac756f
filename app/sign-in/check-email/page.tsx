import { MailCheck } from 'lucide-react';
import { AuthShell } from '@/app/_ui/auth-shell';

export const metadata = { title: 'Check your email · Steward' };

export default function CheckEmail() {
  return (
    <AuthShell title="Check your email">
      <p className="flex gap-3 text-muted">
        <MailCheck aria-hidden="true" className="size-6 shrink-0 text-accent" />A sign-in link is on its way. It works once, for 15 minutes. You can close this tab.
      </p>
    </AuthShell>
  );
}
