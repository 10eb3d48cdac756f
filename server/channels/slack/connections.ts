import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { slackApps, slackInstallations } from '@/db/schema';
import type { Connection, ThreadRef } from '../adapter';
import { slackAppSecrets, slackWebhookApp } from './credentials';
import { slackBot, type BotAccess } from './installations';
import { parseMessageRef, parseThread } from './transform';

/*
 * Slack's connections for the port: each of an assistant's Slack apps (its own workspace apps and
 * the account's marketplace app for it) is one connection, named by the app's id. A person's link
 * is made through one app (the link flow), and counts only there. An app is a connection once it
 * has credentials (its own, or the deployment's for the marketplace app); its bot in a workspace
 * is its installation there.
 */

type SlackAppRow = typeof slackApps.$inferSelect;

export const connectionOf = (app: SlackAppRow): Connection => ({ id: app.id, channel: 'slack', accountId: app.accountId, assistantId: app.assistantId, externalId: app.id, name: app.botDisplayName });

/** The connection a webhook path names: an app with credentials (else the webhook is off: 404). */
export async function webhookConnection(db: Db, appId: string): Promise<Connection | null> {
  const found = await slackWebhookApp(db, appId);
  return found ? connectionOf(found.app) : null;
}

/** The assistant's apps that have credentials (their own, or the deployment's for the marketplace app); with `appId`, that one only. */
async function readyApps(db: Db, assistantId: string, appId?: string): Promise<SlackAppRow[]> {
  const apps = await db.select().from(slackApps).where(appId ? and(eq(slackApps.assistantId, assistantId), eq(slackApps.id, appId)) : eq(slackApps.assistantId, assistantId));
  const ready: SlackAppRow[] = [];
  for (const app of apps) if (await slackAppSecrets(db, app)) ready.push(app);
  return ready;
}

/**
 * The assistant's app to send as: the one a thread names (an app of this assistant only), or, with
 * no thread, its app with the newest installation.
 */
export async function assistantConnection(db: Db, assistantId: string, thread?: ThreadRef | null): Promise<Connection | null> {
  // A reference written before the port (a reply to it) names its app as a thread does.
  const named = (parseThread(thread) ?? parseMessageRef(thread))?.appId;
  const ready = await readyApps(db, assistantId, named);
  if (named || ready.length <= 1) return ready[0] ? connectionOf(ready[0]) : null;
  const [newest] = await db
    .select({ appId: slackInstallations.appId })
    .from(slackInstallations)
    .where(inArray(slackInstallations.appId, ready.map((a) => a.id)))
    .orderBy(desc(slackInstallations.updatedAt))
    .limit(1);
  return connectionOf(ready.find((a) => a.id === newest?.appId) ?? ready[0]!);
}

/** The bots of all the assistant's apps, newest installation first: where send_message may look for a member. */
export async function assistantBots(db: Db, assistantId: string): Promise<BotAccess[]> {
  const ready = (await readyApps(db, assistantId)).map((a) => a.id);
  if (!ready.length) return [];
  const rows = await db
    .select({ appId: slackInstallations.appId, teamId: slackInstallations.teamId })
    .from(slackInstallations)
    .where(inArray(slackInstallations.appId, ready))
    .orderBy(desc(slackInstallations.updatedAt));
  const bots: BotAccess[] = [];
  for (const r of rows) {
    const bot = await slackBot(db, r.appId, r.teamId);
    if (bot) bots.push(bot);
  }
  return bots;
}
