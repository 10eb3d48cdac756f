import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Tx } from '@/db/client';
import { publicOrigin } from '@/server/http/public-origin';
import type { McpSkill } from './installed';
import { sealMcpSecret, type McpSecret } from './secret';
import { updateSkill } from './skills-table';

/** Where MCP authorization servers send the person back: one callback for every skill, told apart by `state`. */
export const oauthCallbackUrl = () => `${publicOrigin().origin}/api/skills/oauth/callback`;

/** How Steward registers itself with an MCP server's authorization server (dynamic client registration): a public client with PKCE. */
export const stewardClientMetadata = (): OAuthClientMetadata => ({
  client_name: 'Steward',
  redirect_uris: [oauthCallbackUrl()],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** Seals the skill's OAuth state (client and tokens) back onto its row. */
export async function saveSkillSecret(db: Tx, skill: Pick<McpSkill, 'id' | 'accountId'>, secret: McpSecret): Promise<void> {
  await updateSkill(db, skill, { mcpSecretSealed: await sealMcpSecret(db, secret) });
}

/**
 * The provider the SDK uses when calling a skill's server at run time: the sealed tokens, and
 * refreshed ones sealed back at once. No person is present, so when the tokens can no longer be
 * refreshed the connection fails (McpUnreachable: "authorize again"), it never redirects.
 */
export function storedOauthProvider(db: Tx, skill: McpSkill, secret: McpSecret): OAuthClientProvider {
  const state: McpSecret = { ...secret, oauth: { ...(secret.oauth ?? {}) } };
  return {
    get redirectUrl() {
      return oauthCallbackUrl();
    },
    get clientMetadata() {
      return stewardClientMetadata();
    },
    clientInformation: () => state.oauth?.clientInformation,
    saveClientInformation: async (info: OAuthClientInformationMixed) => {
      state.oauth = { ...state.oauth, clientInformation: info };
      await saveSkillSecret(db, skill, state);
    },
    tokens: () => state.oauth?.tokens,
    saveTokens: async (tokens: OAuthTokens) => {
      state.oauth = { ...state.oauth, tokens };
      await saveSkillSecret(db, skill, state);
    },
    redirectToAuthorization: () => {
      throw new Error(`the MCP server needs a person to authorize Steward again: POST /skills/${skill.id}/oauth/start`);
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => {
      throw new Error('no authorization is in progress');
    },
  };
}

/**
 * The provider of one authorization in progress (oauth.ts): it collects what the SDK decides
 * (the registered client, the PKCE verifier, the authorization URL) and hands back what a later
 * step stored. `tokens` are what the exchange produced.
 */
export class FlowProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  tokensReceived: OAuthTokens | null = null;

  constructor(
    private readonly flowState: string,
    public client: OAuthClientInformationMixed | undefined,
    private verifier: string | undefined,
  ) {}

  get redirectUrl() {
    return oauthCallbackUrl();
  }
  get clientMetadata() {
    return stewardClientMetadata();
  }
  state() {
    return this.flowState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return undefined;
  }
  saveTokens(tokens: OAuthTokens) {
    this.tokensReceived = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no PKCE verifier was kept for this authorization');
    return this.verifier;
  }
  get savedVerifier() {
    return this.verifier;
  }
}
