import { eq } from 'drizzle-orm';
import { decodeProtectedHeader, importSPKI, jwtVerify, type CryptoKey } from 'jose';
import { accountCertificates, accounts } from '@/db/schema';
import { unauthorized } from '@/server/http/errors';
import type { Actor } from '../actor';
import { actAs } from './act-as';
import { pickAccount } from './api-key';
import type { Authenticator } from './authenticator';

const keyCache = new Map<string, { pem: string; key: CryptoKey }>();
const MAX_TOKEN_LIFETIME_S = 3600;
const CLOCK_SKEW_S = 60;

/**
 * RS256 JWTs whose header `kid` names a registered public key, `iat` and `exp` at most an hour
 * apart. They act account-wide, or as a user through X-User-Email. Recognised by shape alone
 * (three dot-separated parts), so this kind is tried after every prefixed one.
 */
export const certificateCredential: Authenticator<Actor> = {
  kind: 'certificate',
  matches: (token) => token.split('.').length === 3,
  async authenticate(token, { db, headers }) {
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== 'RS256') throw unauthorized('Certificate tokens must be signed with RS256');
      kid = header.kid;
    } catch (e) {
      if (e instanceof Error && 'status' in e) throw e;
      throw unauthorized('Malformed certificate token');
    }
    if (!kid) throw unauthorized('Certificate token has no kid');
    const [row] = await db
      .select({ cert: accountCertificates, account: accounts })
      .from(accountCertificates)
      .innerJoin(accounts, eq(accounts.id, accountCertificates.accountId))
      .where(eq(accountCertificates.id, kid))
      .limit(1);
    if (!row || row.cert.revokedAt) throw unauthorized('Unknown or revoked certificate');

    let cached = keyCache.get(kid);
    if (!cached || cached.pem !== row.cert.publicKeyPem) {
      cached = { pem: row.cert.publicKeyPem, key: (await importSPKI(row.cert.publicKeyPem, 'RS256')) as CryptoKey };
      keyCache.set(kid, cached);
    }
    const now = new Date();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, cached.key, { algorithms: ['RS256'], currentDate: now, clockTolerance: CLOCK_SKEW_S }));
    } catch {
      throw unauthorized('Certificate token failed verification or has expired');
    }
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') {
      throw unauthorized('Certificate token needs iat and exp');
    }
    if (payload.exp - payload.iat > MAX_TOKEN_LIFETIME_S) throw unauthorized('Certificate token lifetime exceeds one hour');
    if (payload.iat > now.getTime() / 1000 + CLOCK_SKEW_S) throw unauthorized('Certificate token issued in the future');
    if ('type' in payload) throw unauthorized('Certificate tokens with a type claim are refused');

    const base = {
      accountId: row.cert.accountId,
      credential: { kind: 'certificate' as const, kid, email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null },
      level: 'account' as const,
      organizationId: null,
      scopes: [],
      account: pickAccount(row.account),
    };
    // A delegated token (with `email`) still acts account-wide, as the spec states for now.
    const userEmail = headers.get('x-user-email');
    if (userEmail === null) return { ...base, user: null, actingVia: null };
    return { ...base, user: await actAs(db, row.cert.accountId, userEmail), actingVia: 'x_user_email' };
  },
};
