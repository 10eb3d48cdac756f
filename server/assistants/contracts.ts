import { z } from 'zod';
import { ImageUrlOrDataUri } from '@/server/http/browser-url';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { Email } from '@/server/user-record/contracts';

// The spec's "URL or data URI": an https URL, or a raster-image data URI (an SVG can carry script).
const Avatar = ImageUrlOrDataUri;
const WritingStyle = z.object({
  professionalism: z.number().min(0).max(3).optional(),
  humor: z.number().min(0).max(3).optional(),
  emojiUse: z.number().min(0).max(3).optional(),
  characterInspiration: z.string().max(500).optional(),
  externalCommunication: z.string().max(2000).optional(),
  oneOnOneCommunication: z.string().max(2000).optional(),
});
const profile = {
  avatar: Avatar.nullable().optional(),
  signature: z.string().max(10_000).nullable().optional(),
  signatureEditorMode: z.enum(['visual', 'html']).nullable().optional(),
  personality: z.string().max(10_000).nullable().optional(),
  tagline: z.string().max(500).nullable().optional(),
  backstory: z.string().max(10_000).nullable().optional(),
  appearanceDescription: z.string().max(5000).optional(),
  gender: z.enum(['male', 'female', 'other']).nullable().optional(),
  pronouns: z.string().max(50).nullable().optional(),
  country: z.string().length(2).toUpperCase().nullable().optional(),
  writingStyle: WritingStyle.optional(),
  voice: z.object({ provider: z.string().min(1), voiceId: z.string().min(1) }).nullable().optional(),
  talkToStrangers: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};

export const CreateAssistantBody = z.object({
  name: z.string().trim().min(1, 'is required').max(100),
  email: Email,
  scope: z.enum(['account', 'organization', 'team', 'user']).default('account'),
  organization: z.string().min(1).optional(),
  team: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  ...profile,
});
export const UpdateAssistantBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  email: Email.optional(),
  status: z.enum(['active', 'inactive']).optional(),
  ...profile,
});
export const HireBody = z.object({
  name: z.string().trim().min(1, 'is required').max(100),
  email: Email.optional(),
  ...profile,
});

export const AssistantResponse = z.object({
  id: z.string(),
  account: z.string(),
  organization: z.string().nullable(),
  team: z.string().nullable(),
  user: z.string().nullable(),
  scope: z.enum(['account', 'organization', 'team', 'user']),
  name: z.string(),
  email: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  signature: z.string().nullable(),
  signatureEditorMode: z.string().nullable(),
  personality: z.string().nullable(),
  tagline: z.string().nullable(),
  backstory: z.string().nullable(),
  role: z.string().nullable(),
  displayPersonality: z.string().nullable(),
  gender: z.string().nullable(),
  pronouns: z.string().nullable(),
  country: z.string().nullable(),
  signaturePhrases: z.array(z.string()),
  writingStyle: z.record(z.string(), z.unknown()),
  voice: z.object({ voiceId: z.string(), provider: z.string() }).nullable(),
  status: z.enum(['active', 'inactive']),
  talkToStrangers: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  inboxPlatform: z.string().nullable(),
  inboxAuthError: z.boolean(),
  channels: z.object({
    imessage: z.string().nullable(),
    sms: z.string().nullable(),
    whatsapp: z.string().nullable(),
    voice: z.object({
      status: z
        .enum(['none', 'provisioning', 'pending_a2p', 'active', 'failed'])
        .describe(
          'none → provisioning (a phone-line request asks for voice) → active (a line with voice is assigned or bought) or failed (dismissed, or fulfilled without voice). `pending_a2p` (waiting on carrier registration) is listed by the spec but never produced by Steward: US A2P 10DLC registration concerns texting through a Twilio Messaging Service, which Steward does not register or attach its numbers to, and calls need none (docs/decisions.md, issue 46 second part).',
        ),
      provisionedAt: z.string().nullable(),
      recordingDisclosure: z.boolean(),
    }),
  }),
  appearanceDescription: z.string(),
  tags: z.record(z.string(), z.unknown()),
  deletedAt: z.string().nullable(),
  retiredEmail: z.string().nullable(),
  emailReleasedAt: z.string().nullable(),
  isPrimary: z.boolean().optional(),
  slack: z.object({ configured: z.boolean(), connected: z.boolean(), deepLinks: z.record(z.string(), z.string()) }).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const AssistantEnvelope = z.object({ ok: z.literal(true), assistant: AssistantResponse });
export const ListAssistantsQuery = PageQuery.extend({ email: z.string().max(320).optional() });
export const ListAssistantsResponse = z.object({ ok: z.literal(true), assistants: z.array(AssistantResponse), ...PageFields });
export const RosterResponse = z.object({ ok: z.literal(true), assistants: z.array(AssistantResponse), primaryAssistantId: z.string().nullable() });
export const AssistantParams = z.object({ assistantId: z.string().min(1) });
export const RosterParams = z.object({ userId: z.string().min(1), assistantId: z.string().min(1) });
export const ReleaseQuery = z.object({ transfer: z.enum(['primary']).optional() });
export const DeletedAssistantResponse = z.object({ ok: z.literal(true), assistant: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });
export const CheckEmailQuery = z.object({ slug: z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'letters, digits, dots, dashes and underscores') });
export const GenerateQuery = z.object({ name: z.string().trim().min(1, 'is required').max(100) });
export const CheckEmailResponse = z.object({ ok: z.literal(true), available: z.boolean(), email: z.string() });
export const GenerateResponse = z.object({ ok: z.literal(true), suggestions: z.array(z.string()) });
