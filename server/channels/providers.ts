import { z } from 'zod';
import { badRequest } from '@/server/http/errors';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';

/**
 * OAuth settings of the chat providers, from the environment. The URLs default to the
 * providers' documented endpoints and can point at a local fake in development and tests.
 */
export function slackConfig() {
  const clientId = process.env.SLACK_CLIENT_ID;
  const clientSecret = process.env.SLACK_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw badRequest('Slack is not configured for this deployment (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET)', {}, 'slack_not_configured');
  return {
    clientId,
    clientSecret,
    authorizeUrl: process.env.SLACK_OAUTH_AUTHORIZE_URL ?? 'https://slack.com/oauth/v2/authorize',
    tokenUrl: process.env.SLACK_OAUTH_TOKEN_URL ?? 'https://slack.com/api/oauth.v2.access',
  };
}

export function teamsConfig() {
  const clientId = process.env.TEAMS_CLIENT_ID;
  const clientSecret = process.env.TEAMS_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw badRequest('The account has no Teams app configured (TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET)', {}, 'teams_not_configured');
  const tenant = process.env.TEAMS_TENANT ?? 'common';
  return {
    clientId,
    clientSecret,
    authorizeUrl: process.env.TEAMS_OAUTH_AUTHORIZE_URL ?? `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
    tokenUrl: process.env.TEAMS_OAUTH_TOKEN_URL ?? `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
  };
}

/** Exchanges an authorization code at the provider's token endpoint (form-encoded, as both document). */
export async function exchangeCode(tokenUrl: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params), signal: AbortSignal.timeout(TOTAL_MS.token) });
  } catch {
    throw badRequest('The provider could not be reached to finish the connection', {}, 'provider_unreachable');
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  // Slack answers 200 with ok:false on errors; Microsoft uses HTTP statuses.
  if (!res.ok || body.ok === false || body.error) throw badRequest(`The provider refused the code: ${String(body.error ?? res.status)}`, {}, 'oauth_exchange_failed');
  return body;
}

export const publicBase = (requestUrl: string) => process.env.STEWARD_PUBLIC_URL?.replace(/\/$/, '') ?? new URL(requestUrl).origin;

/*
 * Calls to the mailbox providers (Gmail, Microsoft Graph) and their OAuth token endpoints: one
 * error type whose `reached` says whether the request may have arrived, so a send whose answer
 * was lost is told apart from one that never left.
 */

/** A provider's refusal (an HTTP status and its error code), or no answer at all (`status` null). */
export class ProviderHttpError extends Error {
  constructor(
    readonly provider: string,
    readonly status: number | null,
    readonly code: string | null,
    message: string,
    /** False only when the request certainly never reached the provider (refused connection, unknown host). */
    readonly reached: boolean,
  ) {
    super(message);
  }
}

const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** fetch with a deadline (server/http/outbound-timeouts.ts); a failure without an answer becomes a ProviderHttpError (status null). */
export async function providerFetch(provider: string, url: string, init: RequestInit = {}, timeoutMs: number = TOTAL_MS.mailbox): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const code = String((e as { cause?: { code?: unknown } }).cause?.code ?? '');
    const never = NEVER_CONNECTED.has(code);
    throw new ProviderHttpError(provider, null, code || null, `${provider} could not be reached${never ? '' : ' (no answer arrived)'}: ${(e as Error).message}`, !never);
  }
}

const TokenAnswer = z
  .object({
    access_token: z.string().min(1),
    token_type: z.string().optional(),
    expires_in: z.coerce.number().optional(),
    refresh_token: z.string().min(1).optional(),
    scope: z.string().optional(),
    id_token: z.string().optional(),
  })
  .loose();
export type ProviderTokens = z.infer<typeof TokenAnswer>;
const TokenRefusal = z.object({ error: z.string(), error_description: z.string().optional() }).loose();

export type TokenResult = { ok: true; tokens: ProviderTokens } | { ok: false; error: string; description: string | null; status: number | null };

/** One request to an OAuth 2.0 token endpoint (form-encoded, RFC 6749 section 4.1.3 and 6): the tokens, or the endpoint's error (`invalid_grant`: revoked or expired). */
export async function requestTokens(provider: string, tokenUrl: string, params: Record<string, string>): Promise<TokenResult> {
  let res: Response;
  try {
    res = await providerFetch(provider, tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: new URLSearchParams(params) });
  } catch (e) {
    return { ok: false, error: 'unreachable', description: (e as Error).message, status: null };
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) {
    const tokens = TokenAnswer.safeParse(body);
    if (tokens.success) return { ok: true, tokens: tokens.data };
    return { ok: false, error: 'invalid_response', description: 'the token endpoint answered without an access token', status: res.status };
  }
  const refusal = TokenRefusal.safeParse(body);
  return refusal.success
    ? { ok: false, error: refusal.data.error, description: refusal.data.error_description ?? null, status: res.status }
    : { ok: false, error: `http_${res.status}`, description: null, status: res.status };
}
