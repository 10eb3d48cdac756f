import { badRequest } from '@/server/http/errors';

/*
 * GitHub, the code-hosting connection of coding jobs (spec 5, Providers): an OAuth app's
 * GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET; STEWARD_GITHUB_URL for the web side (OAuth
 * authorize and token, git over HTTPS) and STEWARD_GITHUB_API_URL for the REST API, both
 * pointable at GitHub Enterprise or a local stand-in.
 */

const trimmed = (v: string | undefined, fallback: string) => (v || fallback).replace(/\/+$/, '');

export function githubUrls() {
  const web = trimmed(process.env.STEWARD_GITHUB_URL, 'https://github.com');
  return {
    web,
    api: trimmed(process.env.STEWARD_GITHUB_API_URL, 'https://api.github.com'),
    authorizeUrl: `${web}/login/oauth/authorize`,
    tokenUrl: `${web}/login/oauth/access_token`,
  };
}

/** The OAuth app; 400 github_not_configured when its credentials are unset (the provider is off). */
export function githubConfig() {
  const clientId = process.env.GITHUB_CLIENT_ID;
  const clientSecret = process.env.GITHUB_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw badRequest('GitHub is not configured for this deployment (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET)', {}, 'github_not_configured');
  return { clientId, clientSecret, ...githubUrls() };
}

/** What the OAuth app asks for: repositories (clone, push a branch, open a pull request) and the user's identity. */
export const GITHUB_SCOPES = 'repo read:user user:email';

/** `owner/name` as GitHub spells repositories. */
export const REPO_PATTERN = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
