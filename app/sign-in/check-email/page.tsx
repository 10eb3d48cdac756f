import { HostedFrame } from '@/app/_ui/layout';

export const metadata = { title: 'Check your email · Steward' };

export default function CheckEmail() {
  return (
    <HostedFrame me={null} title="Check your email">
      <p>A sign-in link is on its way. It works once, for 15 minutes. You can close this tab.</p>
    </HostedFrame>
  );
}
