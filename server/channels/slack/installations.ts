import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { slackInstallations, type SlackInstallationRow } from '@/db/schema';
import { openJson, sealJson } from '@/server/secrets/sealed';

/*
 * An assistant's Slack app installed in a workspace (the install flow's oauth.v2.access answer):
 * the bot user and the bot token every reply, progress update and approval card is posted with.
 * The token is sealed at rest; an unsealed copy is kept in memory per installation version.
 */

const PURPOSE = 'slack-bot';
const opened = new Map<string, { at: number; token: string }>();

export type NewInstallation = { accountId: string; appId: string; teamId: string; botUserId: string | null; botToken: string; installedByUserId: string | null; connectionId: string | null };

/** Installing again in the same workspace replaces the token (Slack issues a new one). */
export async function saveSlackInstallation(db: Db, i: NewInstallation): Promise<void> {
  installedRecently.delete(`${i.appId}:${i.teamId}`);
  const botToken = await sealJson(db, i.botToken, PURPOSE);
  const set = { botUserId: i.botUserId, botToken, installedByUserId: i.installedByUserId, connectionId: i.connectionId, updatedAt: sql`now()` };
  await db
    .insert(slackInstallations)
    .values({ ...i, botToken })
    .onConflictDoUpdate({ target: [slackInstallations.appId, slackInstallations.teamId], set });
}

export type BotAccess = { token: string; botUserId: string | null; installation: SlackInstallationRow };

/** The bot of an app in one workspace, or null when the app is not installed there. */
export async function slackBot(db: Db, appId: string, teamId: string): Promise<BotAccess | null> {
  const [row] = await db.select().from(slackInstallations).where(and(eq(slackInstallations.appId, appId), eq(slackInstallations.teamId, teamId)));
  if (!row) return null;
  const hit = opened.get(row.id);
  if (hit && hit.at === row.updatedAt.getTime()) return { token: hit.token, botUserId: row.botUserId, installation: row };
  const token = await openJson<string>(db, row.botToken, PURPOSE);
  if (opened.size > 5_000) opened.clear();
  opened.set(row.id, { at: row.updatedAt.getTime(), token });
  return { token, botUserId: row.botUserId, installation: row };
}

/**
 * Whether the app has a bot in the workspace, and its user id: what an event's routing asks before
 * Slack's answer (is the writer a member Slack vouches for; is this the bot's own message). A burst
 * of events from one workspace reads it once: kept two seconds, like the webhook's app
 * (credentials.ts). Sending always reads the installation itself (slackBot).
 */
export function installedBot(db: Db, appId: string, teamId: string): Promise<{ botUserId: string | null } | null> {
  const key = `${appId}:${teamId}`;
  const hit = installedRecently.get(key);
  if (hit && Date.now() - hit.at < RECENT_MS) return hit.value;
  // The read itself is kept, so the events of a burst that arrive together wait for one read.
  const value = db
    .select({ botUserId: slackInstallations.botUserId })
    .from(slackInstallations)
    .where(and(eq(slackInstallations.appId, appId), eq(slackInstallations.teamId, teamId)))
    .then(([row]) => (row ? { botUserId: row.botUserId } : null));
  if (installedRecently.size > 5_000) installedRecently.clear();
  installedRecently.set(key, { at: Date.now(), value });
  value.catch(() => installedRecently.delete(key));
  return value;
}
const RECENT_MS = 2_000;
const installedRecently = new Map<string, { at: number; value: Promise<{ botUserId: string | null } | null> }>();

/** Slack said the app was uninstalled or its tokens revoked: the workspace's bot is forgotten. */
export async function forgetSlackInstallation(db: Db, appId: string, teamId: string): Promise<void> {
  installedRecently.delete(`${appId}:${teamId}`);
  await db.delete(slackInstallations).where(and(eq(slackInstallations.appId, appId), eq(slackInstallations.teamId, teamId)));
}
