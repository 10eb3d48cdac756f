import { sendblueNumberLookup } from '@/server/channels/imessage/number-lookup';
import type { IdentifierHooks } from '@/server/identifiers/capabilities';

/**
 * Composition (entry floor): what the identifiers area, below the channels, is given to call. A
 * phone identifier that becomes verified is looked up with Sendblue's number lookup (iMessage or
 * SMS) when Sendblue is configured. Passed to the REST endpoints (server/endpoints.ts) and the
 * hosted app's router (server/trpc/routers/identifiers.ts).
 */
export const identifierHooks: IdentifierHooks = { lookUpNumber: sendblueNumberLookup };
