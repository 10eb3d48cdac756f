import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureExecutorKeys } from '@/server/executor/config';
import { signingSecret } from '@/server/files/signing';
import { setHostedDomain } from '@/server/hosted/accounts';
import { ensureAppSecret } from '@/server/secrets/app-secret';
import { masterKeyFile } from '@/server/secrets/master-key';
import { sessionSecret, sessionSetCookie } from '@/server/sign-in/session';
import { spCredentials } from '@/server/hosted/sp-credentials';
import { users } from '@/db/schema';
import { eq } from 'drizzle-orm';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { hosted } from '../helpers/hosted';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const certificate = readFileSync(path.join(import.meta.dirname, '../fixtures/idp-cert.pem'), 'utf8');

/** A provider token endpoint handing out a fresh random token per exchange, remembered here. */
const issuedTokens: string[] = [];
const fake = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const token = `xoxb-${randomBytes(24).toString('hex')}`;
    const refresh = `xoxe-${randomBytes(24).toString('hex')}`;
    issuedTokens.push(token, refresh);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: true, access_token: token, refresh_token: refresh, team: { id: 'T1' }, authed_user: { id: 'U1', access_token: token } }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  Object.assign(process.env, { SLACK_CLIENT_ID: 'cid', SLACK_CLIENT_SECRET: 'csecret', SLACK_OAUTH_TOKEN_URL: `${base}/slack/token` });
});
afterAll(() => new Promise<void>((r) => fake.close(() => r())));

/** The encodings a secret could be stored in besides its own text. */
function forms(secret: string): string[] {
  const out = new Set([secret]);
  for (const encoding of ['base64', 'base64url', 'hex'] as const) {
    const bytes = Buffer.from(secret, encoding);
    if (bytes.length >= 16 && bytes.toString(encoding).replace(/=+$/, '') === secret.replace(/=+$/, '')) {
      out.add(bytes.toString('hex')).add(bytes.toString('base64').replace(/=+$/, '')).add(bytes.toString('base64url'));
    }
  }
  return [...out].filter((s) => s.length >= 16);
}

/** Every row of every table, as text. */
async function dumpDatabase(): Promise<Map<string, string>> {
  const pool = app().database.pool;
  const tables = await pool.query<{ table_schema: string; table_name: string }>(
    `SELECT table_schema, table_name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const dump = new Map<string, string>();
  for (const t of tables.rows) {
    const rows = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${t.table_schema}"."${t.table_name}" t`);
    dump.set(`${t.table_schema}.${t.table_name}`, rows.rows.map((r) => r.row).join('\n'));
  }
  return dump;
}

it('after a full flow, no table holds a secret, token or key in clear', async () => {
  const db = app().database.db;
  const secrets: Record<string, string> = {};

  // An account, its users and keys of every level.
  const acct = await newAccount(app());
  secrets.accountKey = acct.key;
  const admin = await newUser(app(), acct);
  const member = await newUser(app(), acct);
  secrets.userKey = await userKey(app(), acct, member.id);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Dump Co' } })).body.organization;
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const orgKey = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org', scopes: ['read'], expiresAt: new Date(Date.now() + 3600_000).toISOString() } });
  secrets.orgKey = orgKey.body.apiKey.key;

  // SCIM token, SSO settings and the SAML service provider's own key pair (published in its metadata).
  const scim = await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, body: {} });
  expect(scim.status).toBe(201);
  secrets.scimToken = scim.body.token;
  expect((await call(app(), `/organizations/${org.id}/sso`, { key: acct.key, as: admin.email, method: 'PUT', body: { saml: { entryPoint: 'https://idp.example/sso', certificate } } })).status).toBe(200);
  const host = `dump-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(db, acct.accountId, host);
  const metadata = await hosted(`${app().baseUrl}/sso/saml/metadata`, { host });
  expect(metadata.status).toBe(200);
  const sp = await spCredentials(db);
  secrets.spPrivateKey = sp.privateKey.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '').slice(0, 64);

  // A hosted-app session.
  const [adminRow] = await db.select().from(users).where(eq(users.id, admin.id));
  const cookie = await sessionSetCookie(db, adminRow, 'email', true);
  secrets.sessionCookie = cookie.split(';')[0].split('=').slice(1).join('=');
  if (!process.env.NEXTAUTH_SECRET) secrets.sessionSecret = await sessionSecret(db);

  // A file upload through a signed URL.
  const up = (await call(app(), '/drive-files/upload', { key: secrets.userKey, body: { name: 'a.txt', size: 5 } })).body;
  expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': up.contentType }, body: 'hello' })).status).toBe(200);
  expect((await call(app(), `/drive-files/${up.fileId}/confirm`, { key: secrets.userKey, body: { size: 5 } })).status).toBe(200);
  if (!process.env.STEWARD_SIGNING_SECRET) secrets.urlSigning = await signingSecret(db);

  // A Slack connection: provider tokens are stored sealed.
  const assistant = (await call(app(), `/users/${member.id}/assistants`, { key: secrets.userKey, body: { name: 'Mine' } })).body.assistant;
  const started = await fetch(`${app().baseUrl}/oauth/slack/assistant/authorize?assistantId=${assistant.id}`, { headers: { Authorization: `Bearer ${secrets.userKey}` }, redirect: 'manual' });
  const begun = await fetch(started.headers.get('location')!, { redirect: 'manual' });
  const binding = begun.headers.get('set-cookie')!.split(';')[0];
  secrets.oauthBinding = binding.split('=')[1];
  const state = new URL(begun.headers.get('location')!).searchParams.get('state')!;
  const done = await fetch(`${app().baseUrl}/oauth/callback/slack?code=c&state=${encodeURIComponent(state)}`, { headers: { cookie: binding } });
  expect(done.status).toBe(200);
  issuedTokens.forEach((t, i) => (secrets[`providerToken${i}`] = t));
  secrets.oauthStateKey = await ensureAppSecret(db, 'oauth-state-key', () => {
    throw new Error('should exist');
  });
  if (!process.env.STEWARD_ENCRYPTION_KEY) {
    secrets.sealingKey = await ensureAppSecret(db, 'sealing-key', () => {
      throw new Error('should exist');
    });
  }

  // The built-in executor's keys.
  const executor = await ensureExecutorKeys(db);
  if (!process.env.INNGEST_SIGNING_KEY) secrets.inngestSigningKey = executor.signingKey.replace(/^signkey-\w+-/, '');
  if (!process.env.INNGEST_EVENT_KEY) secrets.inngestEventKey = executor.eventKey;

  if (!process.env.STEWARD_MASTER_KEY) secrets.masterKey = readFileSync(masterKeyFile(), 'utf8').trim();
  await app().kernel.lastUsed.flush();

  const dump = await dumpDatabase();
  const all = [...dump.values()].join('\n');
  // The dump does read the data (the flow's rows are there), so finding nothing means something.
  expect(all).toContain(acct.accountId);
  expect(all).toContain(up.fileId);
  expect(dump.get('public.app_secrets')).toContain('url-signing');

  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    for (const form of forms(secret)) {
      for (const [table, text] of dump) if (text.includes(form)) found.push(`${name} in ${table}`);
    }
  }
  for (const [table, text] of dump) {
    if (/PRIVATE KEY/.test(text)) found.push(`a PEM private key in ${table}`);
    if (/xox[abpe]-/.test(text)) found.push(`a Slack token in ${table}`);
  }
  expect(found).toEqual([]);
});
