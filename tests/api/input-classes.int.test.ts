import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { newTenant, tcall } from '../prompts/helpers';

/**
 * One regression test per class of 500 the fuzz run of issue 12 found: updates with nothing
 * to change, NUL and invalid UTF-8 in any part of a request, concurrent duplicates, and a
 * download whose file name is not Latin-1.
 */
const app = useTestServer();
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-input-classes-')))));

type World = { acct: AccountFixture; user: { id: string; email: string; teamId: string }; key: string; orgId: string };

async function world(): Promise<World> {
  const acct = await newAccount(app());
  const user = await newUser(app(), acct);
  const key = await userKey(app(), acct, user.id);
  const org = await call(app(), '/organizations', { key: acct.key, body: { name: 'Input Co' } });
  return { acct, user, key, orgId: org.body.organization.id };
}

const fields = (body: { fields?: { field: string }[] }) => (body.fields ?? []).map((f) => f.field);

describe('an update with nothing to change is 200 with the resource unchanged', () => {
  const nothing = [{}, { notAField: 1, alsoUnknown: 'x' }];

  it('PUT /users/{userId}, PATCH /profile', async () => {
    const w = await world();
    const before = await call(app(), `/users/${w.user.id}`, { key: w.acct.key });
    const profile = await call(app(), '/profile', { key: w.key });
    for (const body of nothing) {
      const put = await call(app(), `/users/${w.user.id}`, { key: w.acct.key, method: 'PUT', body });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.user).toEqual(before.body.user);
      const patch = await call(app(), '/profile', { key: w.key, method: 'PATCH', body });
      expect(patch.status, JSON.stringify(patch.body)).toBe(200);
      expect(patch.body).toEqual(profile.body);
    }
  });

  it('PUT /organizations/{orgId}, PATCH .../settings/model-tiers', async () => {
    const w = await world();
    const before = await call(app(), `/organizations/${w.orgId}`, { key: w.acct.key });
    const tiers = await call(app(), `/organizations/${w.orgId}/settings/model-tiers`, { key: w.acct.key });
    for (const body of nothing) {
      const put = await call(app(), `/organizations/${w.orgId}`, { key: w.acct.key, method: 'PUT', body });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toEqual(before.body);
      const patch = await call(app(), `/organizations/${w.orgId}/settings/model-tiers`, { key: w.acct.key, method: 'PATCH', body });
      expect(patch.status, JSON.stringify(patch.body)).toBe(200);
      expect(patch.body).toEqual(tiers.body);
    }
  });

  it('PUT /teams/{teamId}, PUT /assistants/{assistantId}, PUT /contacts/{contactId}', async () => {
    const w = await world();
    const assistant = (await call(app(), `/users/${w.user.id}/assistants`, { key: w.key, body: { name: 'Quiet helper' } })).body.assistant;
    const contact = (await call(app(), '/contacts', { key: w.key, body: { email: 'unchanged@example.org', name: 'Una' } })).body.contact;
    const targets = [`/teams/${w.user.teamId}`, `/assistants/${assistant.id}`, `/contacts/${contact.id}`];
    for (const target of targets) {
      const before = await call(app(), target, { key: w.key });
      expect(before.status).toBe(200);
      for (const body of nothing) {
        const put = await call(app(), target, { key: w.key, method: 'PUT', body });
        expect(put.status, `${target} ${JSON.stringify(put.body)}`).toBe(200);
        expect(put.body, target).toEqual(before.body);
      }
    }
  });

  it('PATCH /tenants/{tenantId}/blocks/{blockName}', async () => {
    const t = await newTenant(app());
    await tcall(app(), t, '/blocks', { body: { blockName: 'steady', content: 'Stay calm.', description: 'Tone' } });
    const before = (await tcall(app(), t, '/blocks/steady')).body.data;
    for (const body of nothing) {
      const patch = await tcall(app(), t, '/blocks/steady', { method: 'PATCH', body });
      expect(patch.status, JSON.stringify(patch.body)).toBe(200);
      expect(patch.body.data).toMatchObject({ content: before.content, description: before.description, updatedAt: before.updatedAt });
    }
  });
});

describe('text PostgreSQL cannot store is a 400 naming the field', () => {
  it('NUL in a body string, in an object key, or a lone surrogate: 400, nothing written', async () => {
    const w = await world();
    const team = `/teams/${w.user.teamId}`;
    const before = (await call(app(), team, { key: w.key })).body.team;

    const nul = await call(app(), team, { key: w.key, method: 'PUT', body: { name: 'Evil\u0000Team' } });
    expect(nul.status).toBe(400);
    expect(fields(nul.body)).toEqual(['body.name']);
    expect(nul.body.error).toContain('body.name');

    // JSON.stringify writes a lone surrogate as the escape "\ud800", exactly what a client sends.
    const surrogate = await call(app(), team, { key: w.key, method: 'PUT', rawBody: '{"generalInfo":"half \\ud800 a pair"}', headers: { 'Content-Type': 'application/json' } });
    expect(surrogate.status).toBe(400);
    expect(fields(surrogate.body)).toEqual(['body.generalInfo']);

    const key = await call(app(), '/contacts', { key: w.key, body: { email: 'keys@example.org', properties: { 'bad\u0000key': 1 } } });
    expect(key.status).toBe(400);
    expect(fields(key.body)).toEqual(['body.properties.bad\\u0000key']);

    const nested = await call(app(), '/contacts', { key: w.key, body: { email: 'deep@example.org', phones: [{ number: '+33 1 23 45 67 89', source: 'x\u0000' }] } });
    expect(nested.status).toBe(400);
    expect(fields(nested.body)).toEqual(['body.phones.0.source']);

    expect((await call(app(), team, { key: w.key })).body.team).toEqual(before);
    const list = await call(app(), '/contacts', { key: w.key });
    expect(list.body.contacts).toEqual([]);
  });

  it('NUL as a path id: 400 naming path.<param>, on reads and writes alike', async () => {
    const w = await world();
    const cases: [string, string, string][] = [
      ['GET', '/users/%00', 'path.userId'],
      ['PUT', '/users/abc%00def', 'path.userId'],
      ['GET', '/contacts/%00', 'path.contactId'],
      ['DELETE', '/teams/%00', 'path.teamId'],
      ['DELETE', `/organizations/${w.orgId}/members/%00`, 'path.userId'],
      ['GET', '/memories/%00', 'path.memoryId'],
    ];
    for (const [method, url, field] of cases) {
      const res = await call(app(), url, { key: w.key, method, body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${url} ${JSON.stringify(res.body)}`).toBe(400);
      expect(fields(res.body), url).toEqual([field]);
    }
    // Percent-encoding that does not decode stays as written: an id that names nothing.
    for (const id of ['%E0%A4%A', '%ED%A0%80', '%FF', '%']) {
      const res = await call(app(), `/contacts/${id}`, { key: w.key });
      expect(res.status, id).toBe(404);
    }
  });

  it('NUL in id query filters: 400 naming query.<name>', async () => {
    const w = await world();
    const cases: [string, string, string][] = [
      [w.acct.key, '/users?externalId=%00', 'query.externalId'],
      [w.acct.key, '/contacts?userId=%00', 'query.userId'],
      [w.acct.key, '/identifiers?userId=a%00', 'query.userId'],
      [w.key, '/memories?companyId=%00', 'query.companyId'],
      [w.key, '/teams?status=x%00y', 'query.status'],
    ];
    for (const [key, url, field] of cases) {
      const res = await call(app(), url, { key });
      expect(res.status, `${url} ${JSON.stringify(res.body)}`).toBe(400);
      expect(fields(res.body), url).toEqual([field]);
    }
  });

  it('a body that is not valid UTF-8 is 400 "body: not valid UTF-8", nothing written', async () => {
    const w = await world();
    const bytes = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await fetch(`${app().baseUrl}/teams/${w.user.teamId}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${w.key}`, 'Content-Type': 'application/json' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('body: not valid UTF-8');
    const team = (await call(app(), `/teams/${w.user.teamId}`, { key: w.key })).body.team;
    expect(team.name).not.toContain('caf');
  });

  it('JSON nested deeper than 64 levels is 400, not a stack overflow', async () => {
    const w = await world();
    const deep = '{"a":'.repeat(5_000) + '"leaf"' + '}'.repeat(5_000);
    const rawBody = `{"email":"nested@example.org","properties":${deep}}`;
    const res = await call(app(), '/contacts', { key: w.key, rawBody, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/nested deeper than 64 levels/);
    const fine = await call(app(), '/contacts', { key: w.key, body: { email: 'shallow@example.org', properties: { a: { b: { c: 'kept' } } } } });
    expect(fine.status).toBe(201);
    expect(fine.body.contact.properties).toEqual({ a: { b: { c: 'kept' } } });
  });
});

describe('a unique violation is 409 naming what conflicts', () => {
  it('two identical phone-line requests at once: one 201, one 409 naming phoneLineRequest', async () => {
    const w = await world();
    await call(app(), `/users/${w.user.id}/assistants`, { key: w.key, body: { name: 'Line helper' } });
    // Holding a lock that lets both requests read (no pending request yet) but not insert makes
    // the race certain: both pass the service's check, then meet at the unique index.
    const blocker = await app().database.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE phone_line_requests IN SHARE ROW EXCLUSIVE MODE');
      const body = { requestedChannels: { sms: true, voice: true } };
      const both = [call(app(), '/phone-line-requests', { key: w.key, body }), call(app(), '/phone-line-requests', { key: w.key, body })];
      for (let i = 0; i < 200; i++) {
        const waiting = await app().database.pool.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'phone_line_requests'::regclass AND NOT granted",
        );
        if (waiting.rows[0].n >= 2) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await blocker.query('ROLLBACK');
      const results = await Promise.all(both);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      const refused = results.find((r) => r.status === 409)!;
      expect(refused.body).toMatchObject({ ok: false, status: 409, error_code: 'conflict' });
      expect(fields(refused.body)).toEqual(['phoneLineRequest']);
      expect(refused.body.error).not.toMatch(/phone_line_requests|duplicate key/);
    } finally {
      blocker.release();
    }
    const mine = await call(app(), '/phone-line-requests/mine', { key: w.key });
    expect(mine.body.request.status).toBe('pending');
  });
});

describe('downloads', () => {
  it('a file named outside Latin-1 downloads with an RFC 6266 filename* and an ASCII fallback', async () => {
    const w = await world();
    const name = '报告 “Q3” é.txt';
    const up = await call(app(), '/drive-files/upload', { key: w.key, body: { name, size: 5 } });
    expect(up.status).toBe(200);
    const target = new URL(up.body.url);
    const put = await fetch(app().baseUrl.replace(/\/api$/, '') + target.pathname + target.search, {
      method: 'PUT',
      headers: { 'Content-Type': up.body.contentType },
      body: 'hello',
    });
    expect(put.status).toBe(200);
    expect((await call(app(), `/drive-files/${up.body.fileId}/confirm`, { key: w.key, body: { size: 5 } })).status).toBe(200);

    const res = await fetch(`${app().baseUrl}/drive-files/${up.body.fileId}/download`, { headers: { Authorization: `Bearer ${w.key}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition).toBe(`attachment; filename="__ _Q3_ _.txt"; filename*=UTF-8''${encodeURIComponent(name)}`);
    const encoded = /filename\*=UTF-8''(.+)$/.exec(disposition)![1];
    expect(decodeURIComponent(encoded)).toBe(name);
  });

  it('an ASCII name keeps the plain form', async () => {
    const w = await world();
    const up = await call(app(), '/drive-files/upload', { key: w.key, body: { name: 'plain "quoted".txt', size: 2 } });
    const target = new URL(up.body.url);
    await fetch(app().baseUrl.replace(/\/api$/, '') + target.pathname + target.search, { method: 'PUT', headers: { 'Content-Type': up.body.contentType }, body: 'hi' });
    await call(app(), `/drive-files/${up.body.fileId}/confirm`, { key: w.key, body: { size: 2 } });
    const res = await fetch(`${app().baseUrl}/drive-files/${up.body.fileId}/download`, { headers: { Authorization: `Bearer ${w.key}` } });
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="plain _quoted_.txt"; filename*=UTF-8''plain%20%22quoted%22.txt`);
  });
});
