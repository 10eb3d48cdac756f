import type { IdentifierHooks, NumberLookup } from '@/server/identifiers/capabilities';
import { logger } from '@/server/logger';
import { sendblueConfig, sendblueEvaluateService } from './sendblue';

/**
 * The identifiers area's number lookup, answered by Sendblue's (sendblue.ts) when Sendblue is
 * configured; without it, or when the lookup is refused (its plan, its small hourly limit), the
 * number's iMessage use stays unknown.
 */
export const sendblueNumberLookup: NumberLookup = async (number) => {
  const config = sendblueConfig();
  if (!config) return null;
  const found = await sendblueEvaluateService(config, number);
  if (!found.ok) {
    logger.info({ reason: found.reason }, 'sendblue: the number lookup gave no answer');
    return null;
  }
  return { iMessageCapable: found.imessage };
};

/**
 * What the identifiers area (below the channels) is given to call: the REST endpoint lists
 * (server/endpoints.ts) and the hosted app's router pass it down as a value.
 */
export const identifierHooks: IdentifierHooks = { lookUpNumber: sendblueNumberLookup };
