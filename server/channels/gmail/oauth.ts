import { requestTokens, providerFetch, type TokenResult } from '../providers';
import type { GmailConfig } from './config';

/*
 * Google's OAuth 2.0 for web server apps, with PKCE (S256): the consent page asks for offline
 * access (a refresh token) and for exactly what Steward does with the mailbox: read and list
 * mail (gmail.readonly) and send as the user (gmail.send).
 */

export const GMAIL_SCOPES = ['https://www.googleapis.com/auth/gmail.readonly', 'https://www.googleapis.com/auth/gmail.send'];

/** The user's calendars, read and written (spec 6), asked for by the same client as mail: with `include_granted_scopes`, a user who connected Gmail consents only to this. */
export const GOOGLE_CALENDAR_SCOPES = ['https://www.googleapis.com/auth/calendar'];

/** A flow's consent page: mail scopes unless it asks for others (calendars); `loginHint` picks the account already connected. */
export type GoogleFlow = { state: string; codeChallenge: string; redirectUri: string; scopes?: readonly string[]; loginHint?: string };

/** The consent page for one flow. `prompt=consent` makes Google hand out a refresh token even to a returning user. */
export function gmailAuthorizeUrl(cfg: GmailConfig, flow: GoogleFlow): string {
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', flow.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', (flow.scopes ?? GMAIL_SCOPES).join(' '));
  if (flow.loginHint) url.searchParams.set('login_hint', flow.loginHint);
  url.searchParams.set('access_type', 'offline');
  url.searchParams.set('prompt', 'consent');
  url.searchParams.set('include_granted_scopes', 'true');
  url.searchParams.set('state', flow.state);
  url.searchParams.set('code_challenge', flow.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

export const gmailExchangeCode = (cfg: GmailConfig, code: string, codeVerifier: string, redirectUri: string): Promise<TokenResult> =>
  requestTokens('Gmail', cfg.tokenUrl, {
    grant_type: 'authorization_code',
    code,
    code_verifier: codeVerifier,
    redirect_uri: redirectUri,
    client_id: cfg.clientId,
    client_secret: cfg.clientSecret,
  });

/** A new access token; Google keeps the refresh token (answers `invalid_grant` once it is revoked or expired). */
export const gmailRefresh = (cfg: GmailConfig, refreshToken: string): Promise<TokenResult> =>
  requestTokens('Gmail', cfg.tokenUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: cfg.clientId, client_secret: cfg.clientSecret });

/** Revokes a token at Google's revocation endpoint (beside the token endpoint), so a disconnected mailbox stops trusting Steward. */
export async function gmailRevoke(cfg: GmailConfig, token: string): Promise<boolean> {
  const url = new URL('/revoke', cfg.tokenUrl);
  const res = await providerFetch('Gmail', url.toString(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return res.ok;
}
