import { and, asc, desc, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { identifiers } from '@/db/schema';
import { TEXT_PLATFORMS } from '@/server/identifiers/capabilities';

const isTextPlatform = (channel: string): boolean => (TEXT_PLATFORMS as readonly string[]).includes(channel);

/**
 * The channel of a notice to a user who chose notices by text: the `preferredTextPlatform` of the
 * number their texts go to (the first verified phone, primary first: the one
 * server/messaging/text-sender.ts sends to), when set and its provider can send now; otherwise the
 * channel they chose. A notice by email, Slack or Teams is not changed, and costs no lookup.
 */
export async function noticeChannelFor(tx: Tx, userId: string, chosen: string, reachable: (channel: string) => boolean): Promise<string> {
  if (!isTextPlatform(chosen)) return chosen;
  const [phone] = await tx
    .select({ platform: identifiers.preferredTextPlatform })
    .from(identifiers)
    .where(and(eq(identifiers.userId, userId), eq(identifiers.type, 'phone'), eq(identifiers.verified, true)))
    .orderBy(desc(identifiers.primary), asc(identifiers.createdAt))
    .limit(1);
  const preferred = phone?.platform ?? null;
  return preferred && isTextPlatform(preferred) && reachable(preferred) ? preferred : chosen;
}
