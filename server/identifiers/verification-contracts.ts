import { z } from 'zod';
import { PublicIdentifier } from './contracts';

/** Six digits, as the email shows them; spaces a person may type between groups are ignored. */
export const VerifyBody = z.object({
  code: z
    .string()
    .transform((s) => s.replace(/\s+/g, ''))
    .pipe(z.string().regex(/^\d{6}$/, 'must be the 6-digit code from the message')),
});

export const VerificationSentResponse = z.object({
  ok: z.literal(true),
  expiresAt: z.string().describe('When the code stops working (10 minutes after it was sent)'),
});

export const VerifiedResponse = z.object({ ok: z.literal(true), identifier: PublicIdentifier });
