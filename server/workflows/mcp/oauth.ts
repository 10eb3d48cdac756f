import { randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '@/db/client';
import { mcpOauthFlows } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { AppError, badRequest, notFound } from '@/server/http/errors';
import { publicOrigin } from '@/server/http/public-origin';
import { openJson, sealJson } from '@/server/secrets/sealed';
import { describeMcpError } from './connect';
import { guardedFetch } from './guarded-fetch';
import { installedMcpSkill, type McpSkill } from './installed';
import { FlowProvider, saveSkillSecret } from './oauth-provider';
import { mcpUnreachable, probeMcpServer } from './probe';
import { openMcpSecret } from './secret';
import { skillsTable, updateSkill } from './skills-table';

/*
 * The MCP authorization flow for `oauth` skills (MCP spec, Authorization): POST
 * /skills/{skillId}/oauth/start discovers the server's authorization server (protected-resource
 * and authorization-server metadata), registers Steward as a client when it has none yet
 * (dynamic client registration), and answers the authorization URL (authorization code with
 * PKCE, S256). The person opens it; the authorization server sends them to GET
 * /skills/oauth/callback with `code` and `state`, which exchanges the code once, seals the
 * tokens onto the skill, and lists the server's tools with them. Later calls refresh the tokens
 * on their own (oauth-provider.ts).
 */

const FLOW_TTL_MS = 15 * 60_000;
const FLOW_PURPOSE = 'mcp-oauth-flow';

type FlowSecret = { codeVerifier: string; clientInformation: OAuthClientInformationMixed | null };

/** Who may authorize a skill: its owner for a user's skill; an account-wide key for an app-wide one (its tokens serve everyone). */
async function authorizableSkill(db: Db, actor: Actor, skillId: string): Promise<McpSkill> {
  const skill = actor.user
    ? await installedMcpSkill(db, { accountId: actor.accountId, userId: actor.user.id }, skillId)
    : isAccountWide(actor)
      ? await appWideSkill(db, actor.accountId, skillId)
      : null;
  if (!skill) throw notFound('Skill');
  if (skill.ownerUserId === null && !isAccountWide(actor)) throw new AppError(403, 'forbidden', 'An app-wide skill is authorized with an account-wide key, without X-User-Email');
  if (skill.authType !== 'oauth') throw badRequest(`This skill's server uses ${skill.authType} authentication, not oauth`, { field: 'mcpAuthType' }, 'mcp_not_oauth');
  return skill;
}

async function appWideSkill(db: Db, accountId: string, skillId: string): Promise<McpSkill | null> {
  const skills = skillsTable();
  if (!skills) return null;
  const [row] = await db.select({ ownerUserId: skills.ownerUserId }).from(skills).where(and(eq(skills.id, skillId), eq(skills.accountId, accountId)));
  if (!row || row.ownerUserId !== null) return null;
  // Read through the same shape the runtime uses; an app-wide skill is "installed" for any user id.
  return installedMcpSkill(db, { accountId, userId: '' }, skillId);
}

/** A path on Steward's own origin, never elsewhere (no open redirect). */
function returnPath(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) throw badRequest('returnTo: must be a path on this site, starting with /', { field: 'returnTo' });
  return raw;
}

export async function startMcpOauth(db: Db, actor: Actor, skillId: string, input: { returnTo?: string }, now = new Date()) {
  const skill = await authorizableSkill(db, actor, skillId);
  const returnTo = returnPath(input.returnTo);
  const secret = await openMcpSecret(db, skill.secretSealed);
  const state = randomBytes(32).toString('base64url');
  const provider = new FlowProvider(state, secret.oauth?.clientInformation, undefined);
  let result: string;
  try {
    result = await auth(provider, { serverUrl: skill.url, fetchFn: guardedFetch });
  } catch (e) {
    throw mcpUnreachable(skill.url, `authorization could not begin: ${describeMcpError(e)}`);
  }
  if (result === 'AUTHORIZED' || !provider.authorizationUrl) throw mcpUnreachable(skill.url, 'the server did not ask for an authorization');
  if (provider.client && provider.client !== secret.oauth?.clientInformation) {
    // Keep the registered client on the skill: the next authorization reuses it instead of registering again.
    await saveSkillSecret(db, skill, { ...secret, oauth: { ...secret.oauth, clientInformation: provider.client } });
  }
  const sealed = await sealJson(db, { codeVerifier: provider.savedVerifier, clientInformation: provider.client ?? null } satisfies Partial<FlowSecret>, FLOW_PURPOSE);
  await db.insert(mcpOauthFlows).values({
    accountId: skill.accountId,
    skillId: skill.id,
    userId: actor.user?.id ?? null,
    state,
    sealed,
    returnTo,
    expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
  });
  return { ok: true as const, authorizationUrl: provider.authorizationUrl.toString(), expiresAt: new Date(now.getTime() + FLOW_TTL_MS).toISOString() };
}

/**
 * The callback: the flow named by `state` is used once (deleted as it is read); its code is
 * exchanged for tokens, which are sealed onto the skill, and the server's tools are listed again.
 */
export async function finishMcpOauth(db: Db, query: { state: string; code?: string; error?: string }, now = new Date()) {
  const [flow] = await db
    .delete(mcpOauthFlows)
    .where(and(eq(mcpOauthFlows.state, query.state), gt(mcpOauthFlows.expiresAt, now)))
    .returning();
  if (!flow) throw badRequest('This authorization link is unknown, expired or already used: start again', { field: 'state' }, 'oauth_state_invalid');
  if (query.error || !query.code) throw badRequest(`The authorization was not granted: ${query.error ?? 'no code was returned'}`, { field: 'code' }, 'oauth_denied');
  const skill = flow.userId
    ? await installedMcpSkill(db, { accountId: flow.accountId, userId: flow.userId }, flow.skillId)
    : await appWideSkill(db, flow.accountId, flow.skillId);
  if (!skill) throw notFound('Skill');
  const kept = await openJson<FlowSecret>(db, flow.sealed, FLOW_PURPOSE);
  const provider = new FlowProvider(flow.state, kept.clientInformation ?? undefined, kept.codeVerifier);
  try {
    await auth(provider, { serverUrl: skill.url, authorizationCode: query.code, fetchFn: guardedFetch });
  } catch (e) {
    throw mcpUnreachable(skill.url, `the authorization code could not be exchanged: ${describeMcpError(e)}`);
  }
  if (!provider.tokensReceived) throw mcpUnreachable(skill.url, 'the authorization server returned no tokens');
  const secret = { oauth: { clientInformation: provider.client, tokens: provider.tokensReceived } };
  await saveSkillSecret(db, skill, secret);
  const info = await probeMcpServer({ url: skill.url, transport: skill.transport, authType: 'oauth', oauthTokens: provider.tokensReceived });
  await updateSkill(db, skill, { mcpServerInfo: info });
  if (flow.returnTo) return new Response(null, { status: 303, headers: { Location: `${publicOrigin().origin}${flow.returnTo}`, 'Cache-Control': 'no-store' } });
  return { ok: true as const, skill: { id: skill.id, name: skill.name }, authorized: true as const, tools: info.tools.map((t) => t.name) };
}
