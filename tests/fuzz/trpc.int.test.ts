import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { beforeAll, expect, it } from 'vitest';
import { setHostedDomain } from '@/server/hosted/accounts';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { pendingCart } from '../audit/world';
import { request, SEED } from './harness';
import { arbitraryFor, hostileValue, type Json } from './inputs';
import type { World } from './world';

/**
 * The hosted app's tRPC procedures (/api/trpc, the routers the pages call) fuzzed like the REST
 * endpoints: every procedure, as the signed-in person and as nobody, with inputs derived from its
 * Zod input and broken on purpose. A tRPC answer is never an INTERNAL_SERVER_ERROR (HTTP 5xx).
 */
const holder: { handler: ((req: Request) => Promise<Response>) | null } = { handler: null };
const app = useTestServer({ mounts: { '/api/trpc': (req) => holder.handler!(req) } });
const RUNS = Number(process.env.FUZZ_RUNS ?? 16);

type Procedure = { _def: { type: 'query' | 'mutation'; inputs?: z.ZodType[] } };
let procedures: Array<[string, Procedure]> = [];
let host = '';
let cookie = '';
let world: World;

beforeAll(async () => {
  process.env.DATABASE_URL = app().database.pool.options.connectionString as string;
  useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-fuzz-trpc-'))));
  holder.handler = (await import('@/server/trpc/handler')).trpcHandler;
  const { appRouter } = await import('@/server/trpc/app-router');
  procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);
  // The hosted app answers for the account its Host names; a loopback-free name is https, so the cookie is the Secure one.
  const acct = await newAccount(app(), 'tRPC fuzz');
  host = `trpc-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  const user = await newUser(app(), acct);
  const key = await userKey(app(), acct, user.id);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Fuzzed org' } })).body.organization;
  await call(app(), `/users/${user.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const { cartId } = await pendingCart(app(), user.id, key);
  const { sessionSetCookie } = await import('@/server/sign-in/session');
  const { users } = await import('@/db/schema');
  const { eq } = await import('drizzle-orm');
  const [row] = await app().database.db.select().from(users).where(eq(users.id, user.id));
  cookie = (await sessionSetCookie(app().database.db, row, 'email', true)).split(';')[0];
  world = { params: {}, credentials: [], ids: [user.id, user.teamId, org.id, cartId, acct.accountId], email: user.email };
});

/** One call the way the tRPC client makes it: a query as GET with ?input=, a mutation as a JSON POST. */
async function send(name: string, type: 'query' | 'mutation', input: Json | undefined, signedIn: boolean) {
  const headers: Record<string, string> = { Host: host, ...(signedIn ? { Cookie: cookie } : {}) };
  const base = `${app().baseUrl}/trpc/${name}`;
  if (type === 'query') return request(input === undefined ? base : `${base}?input=${encodeURIComponent(JSON.stringify(input))}`, 'GET', headers);
  return request(base, 'POST', { ...headers, 'Content-Type': 'application/json' }, input === undefined ? '' : JSON.stringify(input));
}

it('finds the procedures, and reaches them as the signed-in person (the control)', async () => {
  expect(procedures.length).toBeGreaterThan(40);
  const me = await send('auth.me', 'query', undefined, true);
  expect(me.status, me.text).toBe(200);
  expect(me.text).toContain(world.email);
});

it('no procedure answers an internal error, whatever the input and whoever calls', async () => {
  const failures: string[] = [];
  for (const [name, proc] of procedures) {
    const schema = proc._def.inputs?.[0];
    let json: Record<string, unknown> = {};
    try {
      json = schema ? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) : {};
    } catch {
      // an input JSON Schema cannot express: hostile values only
    }
    const input = fc.oneof({ weight: 4, arbitrary: arbitraryFor(json, world) }, { weight: 1, arbitrary: hostileValue }, { weight: 1, arbitrary: fc.constant<Json | undefined>(undefined) });
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async (value, signedIn) => {
        const res = await send(name, proc._def.type, value as Json | undefined, signedIn);
        if (res.status >= 500 || /INTERNAL_SERVER_ERROR/.test(res.text)) failures.push(`${name} [${signedIn ? 'signed in' : 'nobody'}] ${JSON.stringify(value)?.slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`);
      }),
      { seed: SEED + name.length, numRuns: RUNS },
    );
  }
  expect(failures).toEqual([]);
}, 600_000);
