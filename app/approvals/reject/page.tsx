import { HostedFrame } from '@/app/_ui/layout';
import { DispatchView } from '../dispatch-view';
import { STATUS } from '../status';
import { rejectCaller } from './caller';
import { RejectButton } from './reject-button';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Reject staged actions · Steward', robots: { index: false, follow: false } };

const MAX_TOKEN = 200;

/**
 * Where an approval email's Reject link lands. Opening it changes nothing (mail scanners open
 * links): it shows what would be rejected and a button that does it. No session is needed: the
 * link is what the email gave the cart's owner.
 */
export default async function RejectPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).token;
  const token = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  const usable = token && token.length <= MAX_TOKEN ? token : '';
  // The account: the one this host selects, else (the public origin shared by several accounts) the token's.
  const caller = await rejectCaller(usable);
  const me = caller?.selectedByHost ? await caller.api.auth.me() : null;
  const preview = caller && usable ? await caller.api.approvals.rejectPreview({ token: usable }) : ({ state: 'invalid' } as const);
  // /approvals opens only where the host selects the account (where a person can sign in).
  const review = caller?.selectedByHost ? (
    <p>
      You can review, edit, approve or cancel what your assistants staged on <a href="/approvals">your approvals page</a> (after signing in).
    </p>
  ) : (
    <p>You can review, edit, approve or cancel what your assistants staged in the app you use with your assistant.</p>
  );
  if (preview.state !== 'ready') {
    const why = {
      invalid: 'This reject link is not valid. Check that you opened the whole link from the email.',
      used: `This reject link was already used. The actions are ${preview.state === 'used' ? STATUS[preview.cartStatus] : ''}.`,
      expired: 'This reject link has expired.',
      resolved: `There is nothing to reject any more: the actions are ${preview.state === 'resolved' ? STATUS[preview.cartStatus] : ''}.`,
      changed: 'The actions changed since the email was sent, so this link no longer rejects them.',
    }[preview.state];
    return (
      <HostedFrame me={me} title="Reject staged actions">
        <p role="status" className="mb-3">{why}</p>
        {review}
      </HostedFrame>
    );
  }
  const { cart } = preview;
  const label = `“${cart.taskTitle}”`;
  return (
    <HostedFrame me={me} title="Reject staged actions">
      <p>
        {cart.assistantName ?? 'Your assistant'} staged {cart.dispatches.length === 1 ? 'this action' : 'these actions'} for the task <strong>{cart.taskTitle}</strong>. Nothing has
        been sent. Rejecting sends nothing and tells the assistant; this link then stops working.
      </p>
      <h2 className="mt-6">What would be rejected</h2>
      {cart.dispatches.map((d) => (
        <section key={d.index} className="my-3 rounded-lg border border-border bg-raised p-4" aria-labelledby={`reject-d${d.index}`}>
          <DispatchView dispatch={d} headingId={`reject-d${d.index}`} />
        </section>
      ))}
      <h2 className="mt-6 mb-2">Your decision</h2>
      <RejectButton token={token} label={label} />
      {review}
    </HostedFrame>
  );
}
