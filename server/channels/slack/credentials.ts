import { and, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { slackAppCredentials, slackApps, slackInstallations } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { badRequest, notFound } from '@/server/http/errors';
import { openJson, sealJson } from '@/server/secrets/sealed';
import { deploymentSlackSecrets, type SlackAppSecrets } from './config';
import type { SlackCredentialsBody } from './contracts';

/*
 * Each assistant is its own Slack app (spec 1, Channel behavior). After POST /slack-apps returned
 * the manifest, the person who created the app in Slack hands Steward its client id, client
 * secret and signing secret (PUT /slack-apps/{appId}/credentials, or the hosted form): the
 * secrets are sealed (server/secrets) and never returned, and the app becomes `active`. From
 * then on its install and link flows use its own client, and its events and button presses are
 * verified with its own signing secret. The marketplace app is the deployment's listed app: its
 * credentials are SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_SIGNING_SECRET.
 */

type SlackAppRow = typeof slackApps.$inferSelect;
type Sealed = { clientSecret: string; signingSecret: string };
const PURPOSE = 'slack-app';

/** Unsealed secrets by app, valid while the row's updatedAt is the one they were read at (every event needs them). */
const opened = new Map<string, { at: number; secrets: SlackAppSecrets }>();

/** The app's credentials: its own (workspace app), the deployment's (marketplace), or null while it has none. */
export async function slackAppSecrets(db: Db, app: Pick<SlackAppRow, 'id' | 'kind'>): Promise<SlackAppSecrets | null> {
  if (app.kind === 'marketplace') return deploymentSlackSecrets();
  const [row] = await db.select().from(slackAppCredentials).where(eq(slackAppCredentials.appId, app.id));
  return row ? unsealed(db, row) : null;
}

async function unsealed(db: Db, row: typeof slackAppCredentials.$inferSelect): Promise<SlackAppSecrets> {
  const hit = opened.get(row.appId);
  if (hit && hit.at === row.updatedAt.getTime()) return hit.secrets;
  const sealed = await openJson<Sealed>(db, row.sealed, PURPOSE);
  const secrets = { clientId: row.clientId, clientSecret: sealed.clientSecret, signingSecret: sealed.signingSecret };
  if (opened.size > 5_000) opened.clear();
  opened.set(row.appId, { at: row.updatedAt.getTime(), secrets });
  return secrets;
}

/**
 * A webhook's app with its credentials, in one query (every event and press needs both, inside
 * Slack's 3 seconds); null when there is no such app or it has no credentials (the webhook is off).
 */
export async function slackWebhookApp(db: Db, appId: string): Promise<{ app: SlackAppRow; secrets: SlackAppSecrets } | null> {
  const hit = recent.get(appId);
  if (hit && Date.now() - hit.at < RECENT_MS) return hit.value;
  // Requests that arrive together (a burst; the port's connection and verification of one request) wait for one read.
  const pending = reading.get(appId);
  if (pending) return pending;
  const read = readWebhookApp(db, appId).finally(() => reading.delete(appId));
  reading.set(appId, read);
  return read;
}

async function readWebhookApp(db: Db, appId: string): Promise<{ app: SlackAppRow; secrets: SlackAppSecrets } | null> {
  const [row] = await db.select({ app: slackApps, creds: slackAppCredentials }).from(slackApps).leftJoin(slackAppCredentials, eq(slackAppCredentials.appId, slackApps.id)).where(eq(slackApps.id, appId));
  if (!row) return null;
  const secrets = row.app.kind === 'marketplace' ? deploymentSlackSecrets() : row.creds ? await unsealed(db, row.creds) : null;
  if (!secrets) return null;
  if (recent.size > 5_000) recent.clear();
  recent.set(appId, { at: Date.now(), value: { app: row.app, secrets } });
  return { app: row.app, secrets };
}

/**
 * A burst of events (Slack sends many at once from a busy workspace) reads an app once: found apps
 * are kept for two seconds, so new credentials set through another process apply within two
 * seconds (at once in the process that stored them). A missing app is never kept.
 */
const RECENT_MS = 2_000;
const recent = new Map<string, { at: number; value: { app: SlackAppRow; secrets: SlackAppSecrets } }>();
const reading = new Map<string, Promise<{ app: SlackAppRow; secrets: SlackAppSecrets } | null>>();

/** The status a caller sees: a marketplace app is active once the deployment has its credentials. */
export const shownStatus = (app: Pick<SlackAppRow, 'kind' | 'status'>) => (app.kind === 'marketplace' ? (deploymentSlackSecrets() ? 'active' : 'pending_credentials') : app.status);

/** An app the caller manages: account-wide credentials reach every app of the account, a user their own workspace apps (others 404). */
async function managedApp(db: Db | Tx, actor: Actor, appId: string): Promise<SlackAppRow> {
  const [app] = await db.select().from(slackApps).where(and(eq(slackApps.id, appId), eq(slackApps.accountId, actor.accountId)));
  if (!app) throw notFound('Slack app');
  if (isAccountWide(actor)) return app;
  if (app.kind === 'workspace' && actor.user && app.userId === actor.user.id) return app;
  throw notFound('Slack app');
}

async function view(db: Db | Tx, app: SlackAppRow) {
  const [creds] = await db.select().from(slackAppCredentials).where(eq(slackAppCredentials.appId, app.id));
  const installs = await db.select().from(slackInstallations).where(eq(slackInstallations.appId, app.id)).orderBy(desc(slackInstallations.createdAt));
  const deployment = app.kind === 'marketplace' ? deploymentSlackSecrets() : null;
  const credentials = creds
    ? { clientId: creds.clientId, slackAppId: creds.slackAppId, hasClientSecret: true, hasSigningSecret: true, source: 'app' as const, setAt: creds.updatedAt.toISOString() }
    : deployment
      ? { clientId: deployment.clientId, slackAppId: null, hasClientSecret: true, hasSigningSecret: true, source: 'deployment' as const, setAt: null }
      : { clientId: null, slackAppId: null, hasClientSecret: false, hasSigningSecret: false, source: 'none' as const, setAt: null };
  return {
    ok: true as const,
    slackApp: {
      id: app.id,
      assistant: app.assistantId,
      kind: app.kind,
      botDisplayName: app.botDisplayName,
      status: shownStatus(app),
      createdAt: app.createdAt.toISOString(),
      credentials,
      installations: installs.map((i) => ({ teamId: i.teamId, botUserId: i.botUserId, installedAt: i.createdAt.toISOString() })),
    },
  };
}

export async function getSlackApp(db: Db, actor: Actor, appId: string) {
  return view(db, await managedApp(db, actor, appId));
}

/** Stores (or replaces) a workspace app's credentials, sealed; the app becomes `active`. */
export async function setSlackAppCredentials(db: Db, actor: Actor, appId: string, input: z.infer<typeof SlackCredentialsBody>) {
  // Sealed before the transaction: the sealing key is the deployment's, read (or made) once outside any caller's transaction.
  const sealed = await sealJson(db, { clientSecret: input.clientSecret, signingSecret: input.signingSecret } satisfies Sealed, PURPOSE);
  return db.transaction(async (tx) => {
    const app = await managedApp(tx, actor, appId);
    if (app.kind === 'marketplace') {
      throw badRequest('The marketplace app uses the deployment’s credentials (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_SIGNING_SECRET)', {}, 'marketplace_uses_deployment_credentials');
    }
    const values = { clientId: input.clientId, slackAppId: input.slackAppId ?? null, sealed, setByUserId: actor.user?.id ?? null, updatedAt: new Date() };
    await tx
      .insert(slackAppCredentials)
      .values({ appId: app.id, accountId: app.accountId, ...values })
      .onConflictDoUpdate({ target: slackAppCredentials.appId, set: values });
    const [active] = await tx.update(slackApps).set({ status: 'active' }).where(eq(slackApps.id, app.id)).returning();
    recent.delete(app.id);
    return view(tx, active!);
  });
}

/**
 * The app a person installs or links an assistant through: their own workspace app for it once
 * it is active, else the account's marketplace app for an account-wide assistant; null when the
 * assistant has no app ready (the deployment's client is then used, as before per-app credentials).
 * `pending` says an app exists that still waits for its credentials.
 */
export async function slackAppFor(db: Db, userId: string, assistant: { id: string; scope: string }): Promise<{ app: SlackAppRow; secrets: SlackAppSecrets } | { app: null; pending: boolean }> {
  const rows = await db.select().from(slackApps).where(eq(slackApps.assistantId, assistant.id));
  const own = rows.find((r) => r.kind === 'workspace' && r.userId === userId);
  const candidates = [own, assistant.scope === 'account' ? rows.find((r) => r.kind === 'marketplace') : undefined].filter((r): r is SlackAppRow => Boolean(r));
  for (const app of candidates) {
    const secrets = await slackAppSecrets(db, app);
    if (secrets) return { app, secrets };
  }
  return { app: null, pending: candidates.length > 0 };
}

/**
 * The person's own workspace app for an assistant (the hosted app's setup form), with the link that
 * creates it in Slack from its manifest; null when they have none yet.
 */
export async function mySlackApp(db: Db, actor: Actor, assistantId: string) {
  if (!actor.user) return null;
  const [app] = await db
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.assistantId, assistantId), eq(slackApps.accountId, actor.accountId), eq(slackApps.kind, 'workspace'), eq(slackApps.userId, actor.user.id)));
  if (!app) return null;
  const createAppUrl = typeof app.manifest.createAppUrl === 'string' ? app.manifest.createAppUrl : null;
  return { ...(await view(db, app)).slackApp, createAppUrl };
}
