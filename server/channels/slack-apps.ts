import { and, eq, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { rosterEntries, slackApps } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { visibleAssistant } from '@/server/assistants/access';
import { AppError, badRequest, forbidden } from '@/server/http/errors';
import { slackWorkspaceAppsAllowed } from '@/server/policy/capability-switches';
import type { CreateSlackAppBody } from './contracts';
import { publicBase } from './providers';
import { SLACK_BOT_SCOPES } from './slack/config';
import { shownStatus } from './slack/credentials';
import { recordAudit } from '@/server/audit/record';

/**
 * The manifest the person pastes into Slack's "create app from manifest": events and button
 * presses come to this app's own URLs (verified with its own signing secret), OAuth comes back
 * to the one callback, which knows the app from the signed state.
 */
function manifestFor(base: string, appId: string, botDisplayName: string) {
  const eventsUrl = `${base}/api/slack/events/${appId}`;
  const interactivityUrl = `${base}/api/slack/interactivity/${appId}`;
  const redirectUrls = [`${base}/api/oauth/callback/slack`];
  const manifestJson = {
    display_information: { name: botDisplayName },
    features: { bot_user: { display_name: botDisplayName, always_online: true }, app_home: { messages_tab_enabled: true, messages_tab_read_only_enabled: false } },
    oauth_config: {
      redirect_urls: redirectUrls,
      scopes: { bot: [...SLACK_BOT_SCOPES] },
    },
    settings: {
      event_subscriptions: { request_url: eventsUrl, bot_events: ['app_mention', 'message.im', 'message.channels'] },
      interactivity: { is_enabled: true, request_url: interactivityUrl },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
    },
  };
  return { manifestJson, createAppUrl: `https://api.slack.com/apps?new_app=1&manifest_json=${encodeURIComponent(JSON.stringify(manifestJson))}`, eventsUrl, redirectUrls };
}

/**
 * Each assistant is its own Slack app. marketplace: the account's listed app, for an
 * account-wide assistant, created with an account key. workspace: a user's own app for an
 * assistant on their roster, where their organization allows it. Repeating returns the existing app (200).
 */
export async function createSlackApp(db: Db, actor: Actor, assistantId: string, input: z.infer<typeof CreateSlackAppBody>, requestUrl: string) {
  const assistant = await visibleAssistant(db, actor, assistantId);
  let userId: string | null = null;
  if (input.kind === 'marketplace') {
    if (!isAccountWide(actor)) throw forbidden('The marketplace app is created with an account key and no X-User-Email');
    if (assistant.scope !== 'account') throw badRequest('The marketplace app is for account-wide assistants', {}, 'not_system_assistant');
  } else {
    if (!actor.user) throw new AppError(403, 'user_required', 'A workspace app is created by the user (send X-User-Email)');
    if (assistant.scope === 'account') throw new AppError(403, 'system_assistant_console_only', 'Account-wide assistants get their Slack app from the console');
    const [hired] = await db.select().from(rosterEntries).where(and(eq(rosterEntries.userId, actor.user.id), eq(rosterEntries.assistantId, assistant.id)));
    if (!hired) throw forbidden('The assistant is not on your roster');
    // The account → organization resolution (a lock pins a tier's value; otherwise an `off` anywhere wins).
    if (!(await slackWorkspaceAppsAllowed(db, { accountId: actor.accountId, organizationId: actor.user.organizationId }))) {
      throw new AppError(403, 'slack_not_allowed', 'Your organization does not allow workspace Slack apps');
    }
    userId = actor.user.id;
  }
  const [existing] = await db
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.assistantId, assistant.id), eq(slackApps.kind, input.kind), userId ? eq(slackApps.userId, userId) : isNull(slackApps.userId)));
  const base = publicBase(requestUrl);
  if (existing) return { created: false, body: answer(existing, base) };
  const stored = await db.transaction(async (tx) => {
    const [app] = await tx
      .insert(slackApps)
      .values({ accountId: actor.accountId, assistantId: assistant.id, kind: input.kind, userId, botDisplayName: input.botDisplayName, manifest: {} })
      .returning();
    const manifest = manifestFor(base, app.id, app.botDisplayName);
    const [row] = await tx.update(slackApps).set({ manifest }).where(eq(slackApps.id, app.id)).returning();
    await recordAudit(tx, actor, 'slack_app.created', { type: 'slack_app', id: app.id }, { after: { assistantId: assistant.id, kind: input.kind, userId, botDisplayName: input.botDisplayName } });
    return row;
  });
  return { created: true, body: answer(stored, base) };
}

function answer(app: typeof slackApps.$inferSelect, base: string) {
  return {
    ok: true as const,
    slackApp: { id: app.id, assistant: app.assistantId, kind: app.kind, botDisplayName: app.botDisplayName, status: shownStatus(app), createdAt: app.createdAt.toISOString() },
    manifest: manifestFor(base, app.id, app.botDisplayName),
  };
}
