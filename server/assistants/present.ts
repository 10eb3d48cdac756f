import type { AssistantRow } from '@/db/schema';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Channels are read-only: phone lines arrive through phone-line requests. */
function channels(c: Record<string, unknown>) {
  const voice = (c.voice ?? {}) as { status?: 'none' | 'provisioning' | 'pending_a2p' | 'active' | 'failed'; provisionedAt?: string | null; recordingDisclosure?: boolean };
  return {
    imessage: (c.imessage as string | null) ?? null,
    sms: (c.sms as string | null) ?? null,
    whatsapp: (c.whatsapp as string | null) ?? null,
    voice: { status: voice.status ?? 'none', provisionedAt: voice.provisionedAt ?? null, recordingDisclosure: voice.recordingDisclosure ?? false },
  };
}

export type SlackStatus = { configured: boolean; connected: boolean; deepLinks: Record<string, string> };

export function toPublicAssistant(a: AssistantRow, extra: { isPrimary?: boolean; slack?: SlackStatus } = {}) {
  return {
    id: a.id,
    account: a.accountId,
    organization: a.organizationId,
    team: a.teamId,
    user: a.userId,
    scope: a.scope,
    name: a.name,
    email: a.email,
    avatarUrl: a.avatarUrl,
    signature: a.signature,
    signatureEditorMode: a.signatureEditorMode,
    personality: a.personality,
    tagline: a.tagline,
    backstory: a.backstory,
    role: a.role,
    displayPersonality: a.displayPersonality,
    gender: a.gender,
    pronouns: a.pronouns,
    country: a.country,
    signaturePhrases: a.signaturePhrases,
    writingStyle: a.writingStyle,
    voice: a.voice ?? null,
    status: a.status,
    talkToStrangers: a.talkToStrangers,
    metadata: a.metadata,
    inboxPlatform: a.inboxPlatform,
    inboxAuthError: a.inboxAuthError,
    channels: channels(a.channels),
    appearanceDescription: a.appearanceDescription,
    tags: a.tags,
    deletedAt: iso(a.deletedAt),
    retiredEmail: a.retiredEmail,
    emailReleasedAt: iso(a.emailReleasedAt),
    ...(extra.isPrimary !== undefined ? { isPrimary: extra.isPrimary } : {}),
    ...(extra.slack ? { slack: extra.slack } : {}),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
