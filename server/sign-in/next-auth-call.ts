import NextAuth, { type NextAuthOptions } from 'next-auth';

function cookiesOf(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      out[name] = part.slice(i + 1).trim();
    }
  }
  return out;
}

async function bodyOf(req: Request): Promise<Record<string, string> | undefined> {
  if (req.method !== 'POST') return undefined;
  const type = req.headers.get('content-type') ?? '';
  const text = await req.text();
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text || '{}');
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * Runs next-auth for one request with the site's origin as the only origin it knows. next-auth
 * derives its origin (link URLs, allowed callback URLs, redirects) from Host/X-Forwarded-* headers;
 * its App Router entry reads them from the incoming request, so it is called through its
 * request/response entry instead, with those headers set from the configured site origin.
 */
export async function nextAuthOnOrigin(req: Request, nextauth: string[], options: NextAuthOptions, site: { origin: string }): Promise<Response> {
  const origin = new URL(site.origin);
  const headers: Record<string, string> = Object.fromEntries(req.headers);
  headers.host = origin.host;
  headers['x-forwarded-host'] = origin.host;
  headers['x-forwarded-proto'] = origin.protocol.replace(':', '');
  const query: Record<string, unknown> = { ...Object.fromEntries(new URL(req.url).searchParams), nextauth };

  const out = { status: 200, headers: new Headers(), body: null as BodyInit | null };
  const res = {
    status(code: number) {
      out.status = code;
      return res;
    },
    setHeader(name: string, value: string | string[]) {
      out.headers.delete(name);
      for (const v of [value].flat()) out.headers.append(name, v);
      return res;
    },
    getHeader(name: string) {
      return name.toLowerCase() === 'set-cookie' ? out.headers.getSetCookie() : (out.headers.get(name) ?? undefined);
    },
    end() {
      return res;
    },
    json(body: unknown) {
      out.headers.set('Content-Type', 'application/json');
      out.body = JSON.stringify(body);
      return res;
    },
    send(body: unknown) {
      if (typeof body === 'string') out.body = body;
      else if (body !== undefined && body !== null) {
        if (!out.headers.has('content-type')) out.headers.set('Content-Type', 'application/json');
        out.body = JSON.stringify(body);
      }
      return res;
    },
  };
  const request = { method: req.method, query, headers, cookies: cookiesOf(req.headers.get('cookie')), body: await bodyOf(req) };
  await NextAuth(request as never, res as never, options);
  return new Response(out.status === 204 || out.status === 304 ? null : out.body, { status: out.status, headers: out.headers });
}
