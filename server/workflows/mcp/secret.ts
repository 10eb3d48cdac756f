import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db, Tx } from '@/db/client';
import { openJson, sealJson } from '@/server/secrets/sealed';

/**
 * What an MCP skill keeps sealed at rest (skills.mcpSecretSealed): the api key, or the OAuth
 * client Steward registered with the server and the tokens it was given. Never returned by the
 * API, never logged; only opened to call the server.
 */
export type McpSecret = {
  apiKey?: string;
  oauth?: { clientInformation?: OAuthClientInformationMixed; tokens?: OAuthTokens; authorizationServer?: string };
};

const PURPOSE = 'mcp-skill-secret';

// The sealing key is read through the database handle given; a transaction is a handle on the same database.
const asDb = (db: Db | Tx) => db as Db;

export const sealMcpSecret = (db: Db | Tx, secret: McpSecret) => sealJson(asDb(db), secret, PURPOSE);

export async function openMcpSecret(db: Db | Tx, sealed: string | null | undefined): Promise<McpSecret> {
  if (!sealed) return {};
  return openJson<McpSecret>(asDb(db), sealed, PURPOSE);
}
