import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, importPKCS8 } from 'jose';
import { describe, expect, it } from 'vitest';
import { admin } from '../helpers/admin-cli';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const dbUrl = () => app().database.pool.options.connectionString as string;

describe('admin CLI', () => {
  it('create-account prints exactly one JSON line with a working account key', async () => {
    const res = await admin(dbUrl(), 'create-account', '--name', 'Acme');
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(res.out).toEqual({ accountId: expect.stringMatching(/^[0-9a-f]{24}$/), apiKey: expect.stringMatching(/^ak_live_[0-9a-f]{64}$/) });
    const me = await call(app(), '/me', { key: res.out.apiKey });
    expect(me.body.accountId).toBe(res.out.accountId);
  });

  it('registers and revokes certificates, sets rate limits and the kill switch, and reports errors as JSON', async () => {
    const { out: acct } = await admin(dbUrl(), 'create-account', '--name', 'Certs');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cert-')), 'pub.pem');
    writeFileSync(file, publicKey.export({ type: 'spki', format: 'pem' }));
    const reg = await admin(dbUrl(), 'register-certificate', '--account', acct.accountId, '--public-key', file);
    expect(reg.out.kid).toMatch(/^[0-9a-f]{24}$/);
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: reg.out.kid })
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'));
    expect((await call(app(), '/me', { key: jwt })).body.accountId).toBe(acct.accountId);
    expect((await admin(dbUrl(), 'revoke-certificate', '--kid', reg.out.kid)).out).toEqual({ kid: reg.out.kid, revoked: true });
    expect((await call(app(), '/me', { key: jwt })).status).toBe(401);

    const limits = await admin(dbUrl(), 'set-rate-limits', '--account', acct.accountId, '--reads', '2', '--writes', '9');
    expect(limits.out).toEqual({ accountId: acct.accountId, reads: 2, writes: 9 });
    await call(app(), '/me', { key: acct.apiKey });
    await call(app(), '/me', { key: acct.apiKey });
    expect((await call(app(), '/me', { key: acct.apiKey })).status).toBe(429);

    expect((await admin(dbUrl(), 'kill-switch', 'on', '--account', acct.accountId)).out).toEqual({ accountId: acct.accountId, killSwitch: true });
    const row = await app().database.pool.query('SELECT kill_switch FROM accounts WHERE id = $1', [acct.accountId]);
    expect(row.rows[0].kill_switch).toBe(true);

    const bad = await admin(dbUrl(), 'kill-switch', 'maybe', '--account', acct.accountId);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatchObject({ ok: false, error: expect.stringContaining('on or off') });
    expect((await admin(dbUrl(), 'kill-switch', 'on', '--account', 'nope')).out).toMatchObject({ ok: false, status: 404 });
    // Seven runs of the CLI, each a process of its own (npm, tsx, the migration check): as the other admin tests allow.
  }, 90_000);
});
