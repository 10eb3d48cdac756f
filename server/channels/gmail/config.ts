import { badRequest } from '@/server/http/errors';

/**
 * Gmail's settings (spec 5, Providers): the OAuth client, and base URLs that default to Google's
 * documented endpoints and can point at a regional endpoint or a test stand-in.
 */
export type GmailConfig = { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string; apiUrl: string };

const trimmed = (url: string) => url.replace(/\/+$/, '');

/** Null while GOOGLE_CLIENT_ID or GOOGLE_CLIENT_SECRET is unset: Gmail is off. */
export function gmailSettings(env: Record<string, string | undefined> = process.env): GmailConfig | null {
  const clientId = env.GOOGLE_CLIENT_ID;
  const clientSecret = env.GOOGLE_CLIENT_SECRET;
  if (!clientId || !clientSecret) return null;
  return {
    clientId,
    clientSecret,
    authorizeUrl: env.STEWARD_GOOGLE_AUTH_URL ?? 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: env.STEWARD_GOOGLE_TOKEN_URL ?? 'https://oauth2.googleapis.com/token',
    apiUrl: trimmed(env.STEWARD_GMAIL_API_URL ?? 'https://gmail.googleapis.com'),
  };
}

export function gmailConfig(): GmailConfig {
  const cfg = gmailSettings();
  if (!cfg) throw badRequest('Gmail is not configured for this deployment (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)', {}, 'gmail_not_configured');
  return cfg;
}
