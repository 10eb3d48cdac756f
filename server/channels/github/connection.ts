import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { oauthConnections } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { openJson } from '@/server/secrets/sealed';

/** What a GitHub connection is for, as oauth_connections records it. */
export const GITHUB_PURPOSE = 'code_hosting';

/** The user's GitHub token (their newest connection), or 409 github_not_connected. */
export async function githubToken(db: Db, accountId: string, userId: string): Promise<string> {
  const [row] = await db
    .select()
    .from(oauthConnections)
    .where(and(eq(oauthConnections.accountId, accountId), eq(oauthConnections.userId, userId), eq(oauthConnections.provider, 'github'), eq(oauthConnections.purpose, GITHUB_PURPOSE)))
    .orderBy(desc(oauthConnections.createdAt))
    .limit(1);
  const notConnected = () =>
    new AppError(409, 'github_not_connected', 'The user has not connected GitHub (GET /api/oauth/github/authorize): a coding job needs their code-hosting connection. Ask the user to connect it.');
  if (!row) throw notConnected();
  const tokens = await openJson<{ access_token?: unknown }>(db, row.tokens, 'oauth:github').catch(() => null);
  if (typeof tokens?.access_token !== 'string' || !tokens.access_token) throw notConnected();
  return tokens.access_token;
}
