/*
 * The Teams bot (spec 5, Providers): the same Entra app as the Teams connect flow. TEAMS_CLIENT_ID
 * is the bot's app id (the audience of every Bot Connector token), TEAMS_CLIENT_SECRET its secret.
 * Tokens for the Connector come from STEWARD_TEAMS_TOKEN_URL (client credentials); the Connector's
 * own signing keys from the OpenID metadata at STEWARD_TEAMS_OPENID_URL. The Connector's address is
 * each activity's serviceUrl. Without the app id and secret, the bot is off: its endpoint is 404.
 * Files people send the bot (issue 41) are fetched only from hosts that STEWARD_TEAMS_FILE_HOSTS
 * names (comma-separated host suffixes; `sharepoint.com` by default, where Teams keeps them).
 */

export type TeamsBotConfig = { appId: string; clientSecret: string; tokenUrl: string; openIdUrl: string; fileHosts: string[] };

/** The issuer of every token the Bot Connector sends a bot (Bot Framework: "Connector to bot"). */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The scope a bot asks for to call the Connector. */
export const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';

export function teamsBotConfig(): TeamsBotConfig | null {
  const appId = process.env.TEAMS_CLIENT_ID;
  const clientSecret = process.env.TEAMS_CLIENT_SECRET;
  if (!appId || !clientSecret) return null;
  return {
    appId,
    clientSecret,
    tokenUrl: process.env.STEWARD_TEAMS_TOKEN_URL ?? 'https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token',
    openIdUrl: process.env.STEWARD_TEAMS_OPENID_URL ?? 'https://login.botframework.com/v1/.well-known/openidconfiguration',
    fileHosts: teamsFileHosts(),
  };
}

/** The hosts a shared file's download URL may be on: each entry is a host or a parent domain of hosts (`sharepoint.com` takes `contoso-my.sharepoint.com`). */
export function teamsFileHosts(): string[] {
  const raw = process.env.STEWARD_TEAMS_FILE_HOSTS ?? 'sharepoint.com';
  return raw
    .split(',')
    .map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/^\.+|\.+$/g, ''))
    .filter(Boolean);
}
