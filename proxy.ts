import { NextResponse, type NextRequest } from 'next/server';
import { newNonce, pagePolicy } from '@/server/http/page-csp';

/**
 * Next.js proxy (runs before every page): a per-response nonce and the pages' CSP. Next.js reads
 * the policy from the request headers to put the nonce on the scripts it renders; the browser
 * reads it from the response.
 */
export function proxy(request: NextRequest) {
  const policy = pagePolicy(newNonce(), process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('Content-Security-Policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', policy);
  return response;
}

export const config = {
  // Pages only: the API answers JSON (its headers are set by the kernel and next.config.ts), static chunks carry no document.
  matcher: ['/((?!api/|_next/static/|_next/image|favicon.ico).*)'],
};
