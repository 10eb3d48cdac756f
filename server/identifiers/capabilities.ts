import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { identifiers, type IdentifierRow } from '@/db/schema';
import { invalidFields } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { TEXT_PLATFORMS, type UpdateIdentifierBody } from './contracts';

/*
 * What a phone number can receive (spec 1, Identifiers: `iMessageCapable`, `whatsAppCapable`,
 * `preferredTextPlatform`), learned where it is proven:
 * - a WhatsApp message from the number sets `whatsAppCapable`, an iMessage sets `iMessageCapable`
 *   (messaging/texts-inbound.ts, in the transaction that keeps the text: the provider's signed
 *   webhook proves the sender's number, whoever holds it);
 * - when a phone identifier becomes verified, the number is looked up where a provider offers it
 *   (Sendblue's number lookup): the lookup is a typed value the composition passes down
 *   (server/channels/imessage/number-lookup.ts `identifierHooks`), since this area sits below the channels. Without a provider
 *   configured the flag stays unknown.
 * The person chooses `preferredTextPlatform` among the platforms the number is known to use (SMS
 * always); the text channel of their notices follows it (server/notices/text-platform.ts).
 */

export { TEXT_PLATFORMS };
export type TextPlatform = (typeof TEXT_PLATFORMS)[number];

/** A number's iMessage use as a provider reports it; null when no provider can say (not configured, refused, unreachable). */
export type NumberLookup = (number: string) => Promise<{ iMessageCapable: boolean } | null>;

/** The wiring the identifier services are given from above (channels/imessage/number-lookup.ts). */
export type IdentifierHooks = { lookUpNumber?: NumberLookup | null };

/** What a received text proves about the number it came from (set with the text's other notes). */
export function provenByInbound(channel: string): Partial<Pick<IdentifierRow, 'iMessageCapable' | 'whatsAppCapable'>> {
  if (channel === 'whatsapp') return { whatsAppCapable: true };
  if (channel === 'imessage') return { iMessageCapable: true };
  return {};
}

/**
 * Looks a verified phone identifier up and notes what the provider says; returns the identifier
 * as it now is. A lookup that fails changes nothing (an iMessage received later still sets it).
 */
export async function lookUpCapabilities(db: Db, identifier: IdentifierRow, hooks: IdentifierHooks | undefined): Promise<IdentifierRow> {
  const lookUp = hooks?.lookUpNumber;
  if (!lookUp || identifier.type !== 'phone' || !identifier.verified) return identifier;
  let found: Awaited<ReturnType<NumberLookup>> = null;
  try {
    found = await lookUp(identifier.value);
  } catch (err) {
    logger.warn({ err, identifierId: identifier.id }, 'identifiers: the number lookup failed; capabilities stay as they were');
  }
  if (!found) return identifier;
  const [row] = await db.update(identifiers).set({ iMessageCapable: found.iMessageCapable }).where(eq(identifiers.id, identifier.id)).returning();
  return row ?? identifier;
}

/** Why a platform cannot be this number's preferred one, or null when it can. */
function platformRefusal(identifier: IdentifierRow, platform: TextPlatform): string | null {
  if (identifier.type !== 'phone') return 'only a phone identifier has a text platform';
  if (!identifier.verified) return 'verify this number first: texts go only to a verified number';
  if (platform === 'whatsapp' && identifier.whatsAppCapable !== true) return 'this number has not been seen on WhatsApp: send the assistant a WhatsApp message from it first';
  if (platform === 'imessage' && identifier.iMessageCapable !== true) return 'this number is not known to use iMessage: send the assistant an iMessage from it first';
  return null;
}

/** PATCH /identifiers/{identifierId}: the label, and a phone's preferred text platform (null clears it). */
export async function applyIdentifierUpdate(db: Db, identifier: IdentifierRow, input: z.infer<typeof UpdateIdentifierBody>): Promise<IdentifierRow> {
  const set: Partial<Pick<IdentifierRow, 'label' | 'preferredTextPlatform'>> = {};
  if (input.label !== undefined) set.label = input.label;
  if (input.preferredTextPlatform !== undefined) {
    const why = input.preferredTextPlatform === null ? null : platformRefusal(identifier, input.preferredTextPlatform);
    if (why) throw invalidFields([{ field: 'preferredTextPlatform', problem: why }]);
    set.preferredTextPlatform = input.preferredTextPlatform;
  }
  if (!Object.keys(set).length) return identifier;
  const [row] = await db
    .update(identifiers)
    .set(set)
    .where(and(eq(identifiers.id, identifier.id), eq(identifiers.userId, identifier.userId)))
    .returning();
  return row ?? identifier;
}
