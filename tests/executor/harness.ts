import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Inngest } from 'inngest';
import { serve } from 'inngest/edge';
import { executorRuns } from '@/db/schema';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { startIngress } from '@/server/executor/ingress';
import type { TestServer } from '../helpers/server';

export const signingKey = `signkey-test-${randomBytes(32).toString('hex')}`;
export const eventKey = randomBytes(12).toString('hex');

/** The SDK's serve handler, swapped in once the test server's port is known. */
export const serveHolder: { handler: ((req: Request) => Promise<Response>) | null } = { handler: null };
/** /api/inngest as npm start serves it: a Web handler mounted in the kernel's own server. */
export const mounts = { '/api/inngest': (req: Request) => serveHolder.handler!(req) };

/** As production's client: the SDK checkpoints steps within a call unless told not to. */
export function testClient(ingressUrl: string, opts: { checkpointing?: boolean } = {}) {
  return new Inngest({ id: 'test', isDev: false, checkpointing: opts.checkpointing ?? true, signingKey, eventKey, baseUrl: ingressUrl } as never);
}

export const ingressFor = (server: TestServer) => startIngress({ db: server.database.db, signingKey, eventKey });

/** Serves the functions at /api/inngest and registers them the way a deployment does (PUT). */
export async function serveAndRegister(server: TestServer, client: Inngest, functions: unknown[]) {
  serveHolder.handler = serve({ client, functions: functions as never });
  const origin = server.baseUrl.replace(/\/api$/, '');
  const res = await fetch(`${origin}/api/inngest`, { method: 'PUT' });
  if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
}

/** Real time plus an offset the test moves forward, so sleeps and timeouts pass without waiting. */
export type TestClock = { offset: number; now: () => Date; advance: (ms: number) => void };
export const testClock = (): TestClock => {
  const c: TestClock = { offset: 0, now: () => new Date(Date.now() + c.offset), advance: (ms) => (c.offset += ms) };
  return c;
};

export async function executorFor(server: TestServer, clock: TestClock): Promise<Executor> {
  return startExecutor({
    db: server.database.db,
    databaseUrl: server.database.pool.options.connectionString as string,
    signingKey,
    clock,
    workers: 2,
    leaseMs: 30_000,
    idleMs: 200,
  });
}

export async function until<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runStatus(server: TestServer, runId: string) {
  const [r] = await server.database.db.select().from(executorRuns).where(eq(executorRuns.id, runId));
  return r;
}

export async function runsOf(server: TestServer, functionId: string) {
  return server.database.db.select().from(executorRuns).where(eq(executorRuns.functionId, functionId));
}
