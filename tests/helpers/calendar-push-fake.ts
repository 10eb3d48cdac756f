/*
 * What the calendar stand-ins (Google's watch channels, Graph's subscriptions) share to push: the
 * address a channel was given is the deployment's public https URL, which a test's Steward does
 * not listen on; as the deployment's TLS proxy would, `route` maps that origin to where Steward
 * listens. Every post made is recorded with its answer's status (0: unreachable).
 */

export type PushPost = { address: string; headers: Record<string, string>; body: string | null; status: number };

export function pushPoster() {
  const routes = new Map<string, string>();
  const posts: PushPost[] = [];
  const pending = new Set<Promise<unknown>>();
  const target = (address: string) => {
    const u = new URL(address);
    const to = routes.get(u.origin);
    return to ? `${to}${u.pathname}${u.search}` : address;
  };
  async function post(address: string, headers: Record<string, string>, body: string | null): Promise<{ status: number; text: string; contentType: string | null }> {
    try {
      const res = await fetch(target(address), { method: 'POST', headers, body: body ?? '', signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      posts.push({ address, headers, body, status: res.status });
      return { status: res.status, text, contentType: res.headers.get('content-type') };
    } catch {
      posts.push({ address, headers, body, status: 0 });
      return { status: 0, text: '', contentType: null };
    }
  }
  return {
    posts,
    post,
    /** A post sent without waiting (as a provider notifies after its own answer); `settled` waits for all of them. */
    later(address: string, headers: Record<string, string>, body: string | null) {
      const p = post(address, headers, body).finally(() => pending.delete(p));
      pending.add(p);
    },
    settled: async () => {
      while (pending.size) await Promise.all([...pending]);
    },
    /** A post made before, sent again as it was (a notification late or repeated in flight); answers Steward's status. */
    replay: async (p: PushPost) => (await post(p.address, p.headers, p.body)).status,
    /** Posts to `publicOrigin` go to `listening` instead (the proxy in front of the deployment). */
    route(publicOrigin: string, listening: string) {
      routes.set(new URL(publicOrigin).origin, listening.replace(/\/+$/, ''));
    },
  };
}
