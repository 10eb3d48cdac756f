import { requestTokens, type TokenResult } from '../providers';
import type { GraphConfig } from './config';

/*
 * The Microsoft identity platform's authorization code flow (v2.0 endpoints) with PKCE (S256),
 * for delegated Graph permissions: read and list mail (Mail.ReadWrite, which also lets Steward
 * create the message it then sends, so it gets the message's id), send as the user (Mail.Send),
 * the mailbox's address (User.Read) and a refresh token (offline_access).
 */

export const GRAPH_SCOPES = ['offline_access', 'User.Read', 'Mail.ReadWrite', 'Mail.Send'];

/** The user's calendars, read and written (spec 6), with the same Entra app: a user who connected mail consents only to Calendars.ReadWrite. */
export const GRAPH_CALENDAR_SCOPES = ['offline_access', 'User.Read', 'Calendars.ReadWrite'];

const scopeParam = (cfg: GraphConfig, scopes: readonly string[] = GRAPH_SCOPES) => scopes.map((s) => (s === 'offline_access' ? s : `${graphResource(cfg)}/${s}`)).join(' ');

/** Graph's resource identifier for scopes (`https://graph.microsoft.com`), from the configured API URL's origin. */
function graphResource(cfg: GraphConfig): string {
  return new URL(cfg.graphUrl).origin;
}

export function graphAuthorizeUrl(cfg: GraphConfig, flow: { state: string; codeChallenge: string; redirectUri: string; scopes?: readonly string[]; loginHint?: string }): string {
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', flow.redirectUri);
  url.searchParams.set('response_mode', 'query');
  url.searchParams.set('scope', scopeParam(cfg, flow.scopes));
  if (flow.loginHint) url.searchParams.set('login_hint', flow.loginHint);
  url.searchParams.set('state', flow.state);
  url.searchParams.set('code_challenge', flow.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

export const graphExchangeCode = (cfg: GraphConfig, code: string, codeVerifier: string, redirectUri: string, scopes: readonly string[] = GRAPH_SCOPES): Promise<TokenResult> =>
  requestTokens('Microsoft', cfg.tokenUrl, {
    grant_type: 'authorization_code',
    code,
    code_verifier: codeVerifier,
    redirect_uri: redirectUri,
    scope: scopeParam(cfg, scopes),
    client_id: cfg.clientId,
    client_secret: cfg.clientSecret,
  });

/** A new access token and, as Microsoft rotates them, a new refresh token to keep. */
export const graphRefresh = (cfg: GraphConfig, refreshToken: string, scopes: readonly string[] = GRAPH_SCOPES): Promise<TokenResult> =>
  requestTokens('Microsoft', cfg.tokenUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, scope: scopeParam(cfg, scopes), client_id: cfg.clientId, client_secret: cfg.clientSecret });
