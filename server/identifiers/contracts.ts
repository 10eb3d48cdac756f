import { z } from 'zod';
import { identifierTypes, textChannels } from '@/db/schema';
import { IdentifierResponse, UserResponse } from '@/server/user-record/contracts';

/** The platforms a text to a phone number can go by (a phone identifier's `preferredTextPlatform`). */
export const TEXT_PLATFORMS = textChannels;

export const PublicIdentifier = IdentifierResponse.extend({
  iMessageCapable: z.boolean().optional(),
  whatsAppCapable: z.boolean().optional(),
  preferredTextPlatform: z.string().nullable().optional().describe('Phones: the platform texts to this number go by (imessage, sms, whatsapp), or null for the notice preference’s channel'),
  messagingWindow: z.record(z.string(), z.string()).optional(),
});
export const CreateIdentifierBody = z.object({
  type: z.enum(identifierTypes),
  value: z.string().trim().min(1, 'is required').max(320),
  userId: z.string().min(1).optional(),
  verified: z.boolean().optional(),
  label: z.string().trim().max(100).nullable().optional(),
});
export const CreateIdentifierResponse = z.object({ ok: z.literal(true), identifier: PublicIdentifier, user: UserResponse });
export const ListIdentifiersQuery = z.object({ type: z.enum(identifierTypes).optional(), userId: z.string().optional() });
export const ListIdentifiersResponse = z.object({ ok: z.literal(true), identifiers: z.array(PublicIdentifier) });
export const IdentifierParams = z.object({ identifierId: z.string().min(1) });
export const UpdateIdentifierBody = z
  .object({
    label: z.string().trim().max(100).nullable().optional(),
    preferredTextPlatform: z
      .enum(TEXT_PLATFORMS)
      .nullable()
      .optional()
      .describe('A verified phone only: sms always; whatsapp once a WhatsApp message came from the number; imessage once it is known to use iMessage (null clears)'),
  })
  .strict();
export const LinkBody = z.object({ userId: z.string().min(1, 'is required') });
export const IdentifierEnvelope = z.object({ ok: z.literal(true), identifier: PublicIdentifier, user: UserResponse });
export const DeletedIdentifierResponse = z.object({ ok: z.literal(true), identifier: z.object({ id: z.string(), deleted: z.literal(true) }) });
