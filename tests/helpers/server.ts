import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '@/db/client';
import { credentials } from '@/server/credentials';
import { composeServices } from '@/server/compose';
import { endpoints as allEndpoints } from '@/server/endpoints';
import type { AnyEndpoint } from '@/server/http/endpoint';
import { createApiCore } from '@/server/http/kernel';
import { createKernelDeps, type KernelDeps } from '@/server/http/kernel-deps';
import { createNodeServer, type Fallback, type WebHandler } from '@/server/http/node-server';
import { createTestDatabase } from './database';

// What every serving process composes, but the handovers to an engine tests run themselves (server/compose).
composeServices();

export type TestServer = {
  /** Origin + /api, like the spec's base_url. */
  baseUrl: string;
  database: Database;
  kernel: KernelDeps;
  /** The node:http server itself, for what npm start attaches to it (WebSocket upgrades). */
  http: Server;
  close: () => Promise<void>;
};

/**
 * Starts the production request path (the lean node:http server over the kernel) on a
 * loopback port, against this file's own database. Tests talk to it with real HTTP.
 */
export type TestServerOptions = {
  endpoints?: AnyEndpoint[];
  /** Per-minute defaults; high unless a test is about rate limiting (failed authentications per client IP included). */
  rateLimits?: { reads: number; writes: number; failedAuth?: number };
  /** What serves paths neither the kernel nor a mount does (in production: Next.js, which serves pages, tRPC and auth). */
  fallback?: Fallback;
  /** Web handlers the server answers at their own paths, as npm start mounts /api/inngest. */
  mounts?: Record<string, WebHandler>;
};

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const db = await createTestDatabase();
  const kernel = createKernelDeps(db.database, credentials);
  kernel.validateResponses = true;
  kernel.rateLimits.defaults = { failedAuth: 1_000_000, ...(opts.rateLimits ?? { reads: 1_000_000, writes: 1_000_000 }) };
  const server = createNodeServer(createApiCore(opts.endpoints ?? allEndpoints, kernel), { fallback: opts.fallback, mounts: opts.mounts });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The public origin (links, upload URLs, SAML values of accounts without a hosted domain) is
  // this server, as STEWARD_PUBLIC_URL makes it in a deployment. Each test file runs in its own process.
  process.env.STEWARD_PUBLIC_URL = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    database: db.database,
    kernel,
    http: server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kernel.lastUsed.flush();
      await db.drop();
    },
  };
}

/** beforeAll/afterAll wiring: `const app = useTestServer();` then `app().baseUrl` inside tests. */
export function useTestServer(opts: TestServerOptions = {}): () => TestServer {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startTestServer(opts);
  });
  afterAll(async () => {
    await s?.close();
  });
  return () => {
    if (!s) throw new Error('test server not started');
    return s;
  };
}
