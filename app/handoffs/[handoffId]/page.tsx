import { LiveView } from './live-view';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Your browser · Steward', referrer: 'no-referrer' };

/**
 * Where a handoff's session link leads: the user's browser, live. The single-use token in the
 * link is the credential (it opens the live view's WebSocket once); the page itself holds no
 * data, so it needs no sign-in, and a signed-in session of another user is refused by the socket.
 */
export default async function HandoffPage({ params, searchParams }: { params: Promise<{ handoffId: string }>; searchParams: Promise<{ token?: string }> }) {
  const { handoffId } = await params;
  const { token } = await searchParams;
  return (
    <main style={{ maxWidth: 1320, margin: '0 auto', padding: '16px' }}>
      <h1 style={{ fontSize: 20, margin: '0 0 8px' }}>Your browser</h1>
      {token ? (
        <LiveView handoffId={handoffId} token={token} />
      ) : (
        <p role="alert">This link has no session token. Open the link you were sent, or ask for a new one.</p>
      )}
    </main>
  );
}
