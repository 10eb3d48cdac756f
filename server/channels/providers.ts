import { badRequest } from '@/server/http/errors';

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
    res = await fetch(tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  } catch {
    throw badRequest('The provider could not be reached to finish the connection', {}, 'provider_unreachable');
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  // Slack answers 200 with ok:false on errors; Microsoft uses HTTP statuses.
  if (!res.ok || body.ok === false || body.error) throw badRequest(`The provider refused the code: ${String(body.error ?? res.status)}`, {}, 'oauth_exchange_failed');
  return body;
}

export const publicBase = (requestUrl: string) => process.env.STEWARD_PUBLIC_URL?.replace(/\/$/, '') ?? new URL(requestUrl).origin;
