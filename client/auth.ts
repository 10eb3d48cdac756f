import { SignJWT, importPKCS8, type CryptoKey } from 'jose';

/** An RS256 key pair registered with Steward (`admin register-certificate` gives the `kid`). */
export type CertificateOptions = {
  /** PKCS#8 PEM of the private key. */
  privateKey: string;
  /** The id Steward gave the registered public key. */
  kid: string;
  /** Token lifetime in seconds, at most 3600 (Steward refuses longer). Default 3600. */
  lifetimeSeconds?: number;
};

const REFRESH_BEFORE_S = 300;

/**
 * The bearer credential of a client: an API key as it is, or certificate tokens signed here and
 * cached per email (the spec's "per kid and email"), signed anew when under five minutes remain.
 * `now` is injectable so expiry can be tested without waiting an hour.
 */
export class Credential {
  private key: Promise<CryptoKey> | null = null;
  private readonly tokens = new Map<string, { token: string; exp: number }>();

  constructor(
    private readonly source: { apiKey: string } | { certificate: CertificateOptions },
    private readonly now: () => number,
  ) {}

  async bearer(email: string | null): Promise<string> {
    if ('apiKey' in this.source) return this.source.apiKey;
    const cert = this.source.certificate;
    const nowS = Math.floor(this.now() / 1000);
    const cached = this.tokens.get(email ?? '');
    if (cached && cached.exp - nowS > REFRESH_BEFORE_S) return cached.token;
    this.key ??= importPKCS8(cert.privateKey, 'RS256');
    const lifetime = Math.min(cert.lifetimeSeconds ?? 3600, 3600);
    // A delegated token names the user it is for; X-User-Email (sent beside it) is what acts as them.
    const token = await new SignJWT(email ? { email } : {})
      .setProtectedHeader({ alg: 'RS256', kid: cert.kid })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + lifetime)
      .sign(await this.key);
    this.tokens.set(email ?? '', { token, exp: nowS + lifetime });
    return token;
  }
}
