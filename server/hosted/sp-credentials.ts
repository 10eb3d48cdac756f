import { generate } from 'selfsigned';
import type { Db } from '@/db/client';
import { ensureAppSecret } from '@/server/secrets/app-secret';

export type SpCredentials = { privateKey: string; cert: string };

const cache = new WeakMap<Db, Promise<SpCredentials>>();

/**
 * The key Steward signs its SAML requests with (AuthnRequest, LogoutResponse) and the certificate
 * published in the SP metadata: STEWARD_SAML_SP_KEY + STEWARD_SAML_SP_CERT (PEM), or a self-signed
 * pair generated once (selfsigned) and kept in Postgres, wrapped with the master key, so every instance signs alike.
 */
export function spCredentials(db: Db): Promise<SpCredentials> {
  const { STEWARD_SAML_SP_KEY: key, STEWARD_SAML_SP_CERT: cert } = process.env;
  if (key && cert) return Promise.resolve({ privateKey: key, cert });
  let pending = cache.get(db);
  if (!pending) {
    pending = load(db);
    pending.catch(() => cache.delete(db));
    cache.set(db, pending);
  }
  return pending;
}

async function load(db: Db): Promise<SpCredentials> {
  const value = await ensureAppSecret(db, 'saml-sp-credentials', async () => {
    const pems = await generate([{ name: 'commonName', value: 'Steward SAML service provider' }], { keySize: 2048, algorithm: 'sha256', notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600_000) });
    return JSON.stringify({ privateKey: pems.private, cert: pems.cert });
  });
  return JSON.parse(value) as SpCredentials;
}
