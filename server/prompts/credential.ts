import { eq } from 'drizzle-orm';
import { accounts, serviceKeys } from '@/db/schema';
import { apiKeyCredential } from '@/server/access/credentials/api-key';
import { credentialLevel, type Authenticator } from '@/server/access/credentials/authenticator';
import { hashSecret, sameHash } from '@/server/access/keys';
import { AppError, unauthorized } from '@/server/http/errors';
import { SERVICE_KEY_PATTERN, type TenantCaller } from './service-keys';

declare module '@/server/access/credentials/levels' {
  interface CallerContexts {
    /** A tenant prompt API service key (`sk_live_`) for the `{tenantId}` in the path. */
    service: { tenant: TenantCaller };
  }
}

const unknownKey = () => unauthorized('Unknown or revoked service key');

/**
 * `sk_live_` service keys of the tenant prompt API. Missing or unknown keys are 401; a valid key
 * used on another tenant's path is 404, so tenant ids cannot be probed.
 */
export const serviceKeyCredential: Authenticator<TenantCaller> = {
  kind: 'service_key',
  matches: (token) => token.startsWith('sk_live_'),
  misplaced: 'Service keys work only on the tenant prompt API (/tenants/{tenantId}/...)',
  async authenticate(key, { db, params }) {
    if (!SERVICE_KEY_PATTERN.test(key)) throw unknownKey();
    const hash = hashSecret(key);
    const [row] = await db
      .select({ key: serviceKeys, account: accounts })
      .from(serviceKeys)
      .innerJoin(accounts, eq(accounts.id, serviceKeys.accountId))
      .where(eq(serviceKeys.keyHash, hash))
      .limit(1);
    if (!row || !sameHash(row.key.keyHash, hash) || row.key.status !== 'active') throw unknownKey();
    const tenantId = params.tenantId ?? '';
    if (row.key.accountId !== tenantId) throw new AppError(404, 'not_found', 'Tenant not found');
    return { tenantId, keyId: row.key.id, account: { rateLimitReads: row.account.rateLimitReads, rateLimitWrites: row.account.rateLimitWrites } };
  },
};

/** Auth level `service`: the tenant prompt API; the handler receives the tenant as `tenant`. */
export const serviceLevel = credentialLevel({
  level: 'service',
  kinds: [serviceKeyCredential],
  refuse({ token, kind }) {
    if (token === null) return unauthorized('Missing credential: send Authorization: Bearer <service key>');
    if (kind === apiKeyCredential) return unauthorized('API keys do not work on the tenant prompt API: use a service key (sk_live_)');
    return unknownKey();
  },
  subject: (tenant) => ({ accountId: tenant.tenantId, account: tenant.account }),
  admit: (tenant) => ({ tenant }),
});
