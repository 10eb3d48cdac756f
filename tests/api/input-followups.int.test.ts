import { TRPCError } from '@trpc/server';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AppError } from '@/server/http/errors';
import { publicProcedure, router } from '@/server/trpc/init';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * Follow-ups of the issue 12 fuzz run: SCIM bodies of the wrong shape, an empty or junk SAML
 * certificate, database refusals reaching SCIM and tRPC, and an empty memory update.
 */
const app = useTestServer();
const SCIM = { 'Content-Type': 'application/scim+json' };
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

async function scimOrg() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Followup Co' } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const minted = await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, method: 'POST' });
  const added = await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, body: { domain: 'followup.example' } });
  await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [added.body.domain.id]);
  return { acct, org, admin, token: minted.body.token as string };
}

const scim = (token: string, path: string, opts: { method?: string; body?: unknown } = {}) =>
  call(app(), `/scim/v2${path}`, { key: token, method: opts.method ?? (opts.body ? 'POST' : 'GET'), rawBody: opts.body ? JSON.stringify(opts.body) : undefined, headers: SCIM });

describe('SCIM PATCH bodies of the wrong shape are 400 invalidValue in SCIM’s error format', () => {
  it('PATCH /Users/{id} with a null, scalar or op-less operation', async () => {
    const { token } = await scimOrg();
    const user = await scim(token, '/Users', { body: { userName: 'pat@followup.example', name: { givenName: 'Pat' } } });
    expect(user.status).toBe(201);
    for (const Operations of [[null], [42], ['replace'], [{ path: 'active', value: false }], [{ op: 7 }], 'replace']) {
      const res = await scim(token, `/Users/${user.body.id}`, { method: 'PATCH', body: { Operations } });
      expect(res.status, JSON.stringify({ Operations, body: res.body })).toBe(400);
      expect(res.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' });
      expect(res.body.detail).toMatch(/^Operations/);
    }
    // Nothing changed, and a well-formed operation still works.
    expect((await scim(token, `/Users/${user.body.id}`)).body).toMatchObject({ active: true, name: { givenName: 'Pat' } });
    const ok = await scim(token, `/Users/${user.body.id}`, { method: 'PATCH', body: { Operations: [{ op: 'Replace', path: 'active', value: 'False' }] } });
    expect(ok.status).toBe(200);
    expect(ok.body.active).toBe(false);
  });

  it('PATCH /Groups/{id} whose members value is not a list of {value}', async () => {
    const { token } = await scimOrg();
    const member = (await scim(token, '/Users', { body: { userName: 'gm@followup.example' } })).body.id;
    const group = await scim(token, '/Groups', { body: { displayName: 'Ops', members: [{ value: member }] } });
    expect(group.status).toBe(201);
    const gid = group.body.id;
    const wrong = [
      [{ op: 'add', path: 'members', value: null }],
      [{ op: 'add', path: 'members', value: [null] }],
      [{ op: 'add', path: 'members', value: [{ value: 5 }] }],
      [{ op: 'replace', path: 'members', value: 'someone' }],
      [{ op: 'add', value: { members: [{ display: 'no value' }] } }],
      [{ op: 'replace', value: { members: null } }],
    ];
    for (const Operations of wrong) {
      const res = await scim(token, `/Groups/${gid}`, { method: 'PATCH', body: { Operations } });
      expect(res.status, JSON.stringify({ Operations, body: res.body })).toBe(400);
      expect(res.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' });
      expect(res.body.detail).toMatch(/members/);
    }
    const after = await scim(token, `/Groups/${gid}`);
    expect(after.body.members.map((m: { value: string }) => m.value)).toEqual([member]);
    // Removing by filter sends no value at all, and stays valid.
    const removed = await scim(token, `/Groups/${gid}`, { method: 'PATCH', body: { Operations: [{ op: 'Remove', path: `members[value eq "${member}"]` }] } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.members).toEqual([]);
  });
});

describe('a database refusal through SCIM is answered in SCIM’s error format', () => {
  it('two identical concurrent POST /Users: one 201, the other a SCIM 409 uniqueness, never a 500', async () => {
    const { token } = await scimOrg();
    // Several rounds: whether the pair overlaps or serializes varies; either way the answer must be the same.
    for (let i = 0; i < 6; i++) {
      const body = { userName: `twin${i}@followup.example`, externalId: `twin-${i}` };
      const results = await Promise.all([scim(token, '/Users', { body }), scim(token, '/Users', { body })]);
      expect(results.map((r) => r.status).sort(), JSON.stringify(results.map((r) => r.body))).toEqual([201, 409]);
      const loser = results.find((r) => r.status === 409)!;
      expect(loser.headers.get('content-type')).toContain('application/scim+json');
      expect(loser.body).toMatchObject({ schemas: [SCIM_ERROR], status: '409', scimType: 'uniqueness' });
      expect(loser.body).not.toHaveProperty('ok');
    }
  });

  it('a userName too long for the email index: SCIM 400 invalidValue, not Steward’s error shape', async () => {
    const { token } = await scimOrg();
    const before = (await scim(token, '/Users')).body.totalResults;
    let local = '';
    // Random text: PostgreSQL compresses index entries, so repetition would fit.
    while (local.length < 6000) local += Math.random().toString(36).slice(2);
    const res = await scim(token, '/Users', { body: { userName: `${local}@followup.example` } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/scim+json');
    expect(res.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' });
    expect(res.body).not.toHaveProperty('ok');
    expect((await scim(token, '/Users')).body.totalResults).toBe(before);
  });
});

describe('PUT /organizations/{orgId}/sso with an empty or junk certificate', () => {
  it('is 400 naming saml.certificate', async () => {
    const acct = await newAccount(app());
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Cert Co' } })).body.organization;
    for (const certificate of ['', '   ', 'junk', '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----']) {
      const res = await call(app(), `/organizations/${org.id}/sso`, { key: acct.key, method: 'PUT', body: { saml: { certificate } } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('saml.certificate: is not an X.509 certificate');
      expect(res.body.fields).toEqual([{ field: 'saml.certificate', problem: 'is not an X.509 certificate' }]);
    }
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key })).body.organization.sso ?? null).toBeNull();
  });
});

describe('PUT /memories/{id} naming no field', () => {
  it('returns the memory unchanged, updatedAt included', async () => {
    const acct = await newAccount(app());
    const user = await newUser(app(), acct);
    const key = await userKey(app(), acct, user.id);
    const created = await call(app(), '/memories', { key, body: { content: 'Prefers mornings', tags: ['general'] } });
    expect(created.status).toBe(201);
    await new Promise((r) => setTimeout(r, 20));
    for (const body of [{}, { notAField: true }]) {
      const put = await call(app(), `/memories/${created.body.memory.id}`, { key, method: 'PUT', body });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.memory).toEqual(created.body.memory);
    }
    const read = await call(app(), `/memories/${created.body.memory.id}`, { key });
    expect(read.body.memory.updatedAt).toBe(created.body.memory.updatedAt);
    // A real change still moves updatedAt.
    const changed = await call(app(), `/memories/${created.body.memory.id}`, { key, method: 'PUT', body: { pinned: true } });
    expect(changed.body.memory.pinned).toBe(true);
    expect(changed.body.memory.updatedAt).not.toBe(created.body.memory.updatedAt);
  });
});

describe('tRPC maps a PostgreSQL refusal like REST does', () => {
  // Procedures built on the app's own publicProcedure, so they run through its error mapping and formatter.
  const probe = router({
    duplicate: publicProcedure.mutation(() =>
      app().database.db.transaction(async (tx) => {
        await tx.execute(sql`CREATE TEMP TABLE followup_probe (k text PRIMARY KEY) ON COMMIT DROP`);
        await tx.execute(sql`INSERT INTO followup_probe VALUES ('a'), ('a')`);
      }),
    ),
    badValue: publicProcedure.query(() => app().database.db.execute(sql`SELECT 'not a number'::int`)),
    unexpected: publicProcedure.query(() => {
      throw new Error('boom');
    }),
  });
  const caller = () => probe.createCaller({} as never);
  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as TRPCError;
    }
    throw new Error('resolved');
  };

  it('a unique violation is CONFLICT and a malformed value BAD_REQUEST, with the REST error_code; anything else stays INTERNAL_SERVER_ERROR', async () => {
    const dup = await failure(caller().duplicate());
    expect(dup).toBeInstanceOf(TRPCError);
    expect(dup.code).toBe('CONFLICT');
    expect(dup.cause).toBeInstanceOf(AppError);
    expect((dup.cause as AppError).code).toBe('conflict');
    const bad = await failure(caller().badValue());
    expect(bad.code).toBe('BAD_REQUEST');
    expect((bad.cause as AppError).status).toBe(400);
    expect((await failure(caller().unexpected())).code).toBe('INTERNAL_SERVER_ERROR');
  });

  it('the formatted error carries the status and error_code', async () => {
    // The formatter is what the hosted app's client reads: run a request through the fetch adapter.
    const { fetchRequestHandler } = await import('@trpc/server/adapters/fetch');
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request('http://localhost/trpc/duplicate', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }),
      router: probe,
      createContext: () => ({}) as never,
    });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.error.data).toMatchObject({ code: 'CONFLICT', error_code: 'conflict', status: 409 });
    expect(body.error.message).toMatch(/already exists/);
  });
});
