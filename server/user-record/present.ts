import { asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { activeMembership } from '@/db/queries/memberships';
import { identifiers, type IdentifierRow, type UserRow } from '@/db/schema';
import type { UserResponse } from './contracts';
import { deepMerge, defaultPreferences } from './defaults';

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const toPublicIdentifier = (i: IdentifierRow) => ({
  id: i.id,
  type: i.type,
  value: i.value,
  verified: i.verified,
  primary: i.primary,
  label: i.label,
  createdAt: i.createdAt.toISOString(),
  ...(i.type === 'phone'
    ? {
        iMessageCapable: i.iMessageCapable ?? false,
        whatsAppCapable: i.whatsAppCapable ?? false,
        preferredTextPlatform: i.preferredTextPlatform,
        messagingWindow: i.messagingWindow ?? {},
      }
    : {}),
});

/** The public shape of a user: their active team, and identifiers when asked. */
export async function presentUser(db: Db, user: UserRow, opts: { withIdentifiers?: boolean } = {}): Promise<UserResponse> {
  const membership = await activeMembership(db, user.id);
  const view: UserResponse = {
    id: user.id,
    account: user.accountId,
    email: user.email,
    externalId: user.externalId,
    assistant: user.primaryAssistantId,
    name: user.name,
    firstName: user.firstName,
    lastName: user.lastName,
    avatarUrl: user.avatarUrl,
    timezone: user.timezone,
    locale: user.locale,
    country: user.country,
    city: user.city,
    organization: user.organizationId,
    organizationRole: user.organizationRole,
    team: membership
      ? { id: membership.t.id, name: membership.t.name, organization: membership.t.organizationId, status: membership.t.status }
      : null,
    teamRole: membership?.m.role ?? null,
    status: user.status,
    voice: user.voice ?? null,
    metadata: user.metadata,
    firstLoginAt: iso(user.firstLoginAt),
    username: user.username,
    preferences: deepMerge(defaultPreferences(), user.preferences),
    preferredProviders: user.preferredProviders,
    preferredContactChannel: user.preferredContactChannel,
    assistantName: user.assistantName,
    appName: user.appName,
    onboarded: user.onboardedAt !== null,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
  if (opts.withIdentifiers) {
    const rows = await db.select().from(identifiers).where(eq(identifiers.userId, user.id)).orderBy(asc(identifiers.createdAt));
    view.identifiers = rows.map(toPublicIdentifier);
  }
  return view;
}
