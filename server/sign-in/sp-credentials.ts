import { eq } from 'drizzle-orm';
import { generate } from 'selfsigned';
import type { Db } from '@/db/client';
import { appSecrets } from '@/db/schema';

export type SpCredentials = { privateKey: string; cert: string };

const cache = new WeakMap<Db, Promise<SpCredentials>>();

/**
 * The key Steward signs its SAML requests with (AuthnRequest, LogoutResponse) and the certificate
 * published in the SP metadata: STEWARD_SAML_SP_KEY + STEWARD_SAML_SP_CERT (PEM), or a self-signed
 * pair generated once (selfsigned) and kept in Postgres so every instance signs alike.
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
  const read = async () => (await db.select().from(appSecrets).where(eq(appSecrets.name, 'saml-sp-credentials')))[0];
  let row = await read();
  if (!row) {
    const pems = await generate([{ name: 'commonName', value: 'Steward SAML service provider' }], { keySize: 2048, algorithm: 'sha256', notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600_000) });
    await db.insert(appSecrets).values({ name: 'saml-sp-credentials', value: JSON.stringify({ privateKey: pems.private, cert: pems.cert }) }).onConflictDoNothing();
    row = await read();
  }
  return JSON.parse(row!.value) as SpCredentials;
}
