import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { describe, expect, it } from 'vitest';
import { registerCertificate, revokeCertificate } from '@/server/accounts/service';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

async function token(privatePem: string, kid: string, claims: Record<string, unknown> = {}, opts: { iat?: number; exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const iat = opts.iat ?? now;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuedAt(iat)
    .setExpirationTime(opts.exp ?? iat + 3600)
    .sign(await importPKCS8(privatePem, 'RS256'));
}

describe('certificate tokens', () => {
  it('authenticates account-wide from the registered certificate, never from claims', async () => {
    const acct = await newAccount(app());
    const other = await newAccount(app());
    const kp = keyPair();
    const { kid } = await registerCertificate(app().database.db, acct.accountId, kp.publicPem);
    const t = await token(kp.privatePem, kid, { accountId: other.accountId });
    const me = await call(app(), '/me', { key: t });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ accountId: acct.accountId, userId: null, orgId: null });
  });

  it('a delegated token (with email) still acts account-wide; X-User-Email acts as the user', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const kp = keyPair();
    const { kid } = await registerCertificate(app().database.db, acct.accountId, kp.publicPem);
    const delegated = await token(kp.privatePem, kid, { email: u.email });
    expect((await call(app(), '/me', { key: delegated })).body).toMatchObject({ userId: null });
    expect((await call(app(), '/me', { key: delegated, as: u.email })).body).toMatchObject({ userId: u.id });
  });

  it('refuses expired, over-long, typed, foreign-signed, unknown-kid and revoked tokens with 401 unauthorized', async () => {
    const acct = await newAccount(app());
    const kp = keyPair();
    const stranger = keyPair();
    const { kid } = await registerCertificate(app().database.db, acct.accountId, kp.publicPem);
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      expired: await token(kp.privatePem, kid, {}, { iat: now - 7200, exp: now - 3600 }),
      tooLong: await token(kp.privatePem, kid, {}, { iat: now, exp: now + 7200 }),
      typed: await token(kp.privatePem, kid, { type: 'refresh' }),
      foreign: await token(stranger.privatePem, kid),
      unknownKid: await token(kp.privatePem, 'ffffffffffffffffffffffff'),
      garbage: 'aaa.bbb.ccc',
    };
    for (const [name, t] of Object.entries(cases)) {
      const res = await call(app(), '/me', { key: t });
      expect(res.status, name).toBe(401);
      expect(res.body.error_code, name).toBe('unauthorized');
    }
    const good = await token(kp.privatePem, kid);
    expect((await call(app(), '/me', { key: good })).status).toBe(200);
    await revokeCertificate(app().database.db, kid);
    expect((await call(app(), '/me', { key: good })).status).toBe(401);
  });

  it('refuses a non-RSA public key at registration', async () => {
    const acct = await newAccount(app());
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expect(
      registerCertificate(app().database.db, acct.accountId, publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    ).rejects.toThrow(/RSA/);
  });
});
