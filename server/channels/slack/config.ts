/*
 * Where Slack is reached (spec 5, Providers): the Web API at STEWARD_SLACK_API_URL (default
 * https://slack.com/api), shared files at STEWARD_SLACK_FILES_URL (default
 * https://files.slack.com), OAuth at SLACK_OAUTH_AUTHORIZE_URL and SLACK_OAUTH_TOKEN_URL. The
 * marketplace app's credentials are the deployment's (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET,
 * SLACK_SIGNING_SECRET); every workspace app brings its own through the API.
 */

export const slackApiBase = () => (process.env.STEWARD_SLACK_API_URL ?? 'https://slack.com/api').replace(/\/+$/, '');

/**
 * Where Slack serves the files people share (STEWARD_SLACK_FILES_URL, default
 * https://files.slack.com): a file is downloaded with the bot token only from this origin, so an
 * event naming another host never gets the token sent there (issue 41).
 */
export const slackFilesBase = () => (process.env.STEWARD_SLACK_FILES_URL ?? 'https://files.slack.com').replace(/\/+$/, '');

export const slackAuthorizeUrl = () => process.env.SLACK_OAUTH_AUTHORIZE_URL ?? 'https://slack.com/oauth/v2/authorize';

export const slackTokenUrl = () => process.env.SLACK_OAUTH_TOKEN_URL ?? `${slackApiBase()}/oauth.v2.access`;

/** The credentials an app is reached with: its own, or the deployment's for the marketplace app. */
export type SlackAppSecrets = { clientId: string; clientSecret: string; signingSecret: string };

/** The marketplace app's credentials, or null while the deployment has none (its webhooks then answer 404). */
export function deploymentSlackSecrets(): SlackAppSecrets | null {
  const clientId = process.env.SLACK_CLIENT_ID;
  const clientSecret = process.env.SLACK_CLIENT_SECRET;
  const signingSecret = process.env.SLACK_SIGNING_SECRET;
  if (!clientId || !clientSecret || !signingSecret) return null;
  return { clientId, clientSecret, signingSecret };
}

/** How long a turn may run before its thread shows a progress message (ms). */
export function slackProgressAfterMs(): number {
  const n = Number(process.env.STEWARD_SLACK_PROGRESS_AFTER_MS);
  return Number.isFinite(n) && n >= 0 ? n : 4_000;
}

/**
 * The bot scopes an assistant's Slack app asks for, in its manifest and its install: events in DMs
 * and channels it is in, posting, files both ways (files:write to send, files:read to download
 * what people share with it), DMs, and members' names and addresses.
 */
export const SLACK_BOT_SCOPES = ['app_mentions:read', 'channels:history', 'chat:write', 'files:read', 'files:write', 'im:history', 'im:read', 'im:write', 'users:read', 'users:read.email'] as const;
