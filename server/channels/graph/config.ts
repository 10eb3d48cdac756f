import { badRequest } from '@/server/http/errors';

/**
 * Microsoft 365 mail's settings (spec 5, Providers): the Entra app (MICROSOFT_CLIENT_ID,
 * MICROSOFT_CLIENT_SECRET), the identity platform and Graph base URLs (defaults: Microsoft's
 * documented endpoints), and the tenant the sign-in goes through (`common`: work, school and
 * personal accounts).
 */
export type GraphConfig = { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string; graphUrl: string };

const trimmed = (url: string) => url.replace(/\/+$/, '');

/** Null while MICROSOFT_CLIENT_ID or MICROSOFT_CLIENT_SECRET is unset: Microsoft 365 mail is off. */
export function graphSettings(env: Record<string, string | undefined> = process.env): GraphConfig | null {
  const clientId = env.MICROSOFT_CLIENT_ID;
  const clientSecret = env.MICROSOFT_CLIENT_SECRET;
  if (!clientId || !clientSecret) return null;
  const login = trimmed(env.STEWARD_MICROSOFT_LOGIN_URL ?? 'https://login.microsoftonline.com');
  const tenant = encodeURIComponent(env.MICROSOFT_TENANT ?? 'common');
  return {
    clientId,
    clientSecret,
    authorizeUrl: `${login}/${tenant}/oauth2/v2.0/authorize`,
    tokenUrl: `${login}/${tenant}/oauth2/v2.0/token`,
    graphUrl: trimmed(env.STEWARD_GRAPH_API_URL ?? 'https://graph.microsoft.com/v1.0'),
  };
}

export function graphConfig(): GraphConfig {
  const cfg = graphSettings();
  if (!cfg) throw badRequest('Microsoft 365 mail is not configured for this deployment (MICROSOFT_CLIENT_ID, MICROSOFT_CLIENT_SECRET)', {}, 'outlook_not_configured');
  return cfg;
}
