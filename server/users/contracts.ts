import { z } from 'zod';
import { BrowserUrl } from '@/server/http/browser-url';

const ChannelPrefs = z.object({ enabled: z.boolean(), virtualDuration: z.number(), inPersonDuration: z.number() });

export const UserPreferences = z.object({
  reminders: z.object({
    level: z.enum(['all-events', 'svc-events', 'none']),
    smartReminders: z.boolean(),
    recipient: z.object({
      asOrganizer: z.enum(['only-me', 'with-attendees', 'none']),
      asAttendee: z.enum(['only-me', 'none']),
    }),
  }),
  calendars: z.object({ read: z.array(z.string()) }),
  email: ChannelPrefs,
  slack: ChannelPrefs,
  teams: ChannelPrefs,
  desktop: ChannelPrefs,
  checkInAfter: z.number(),
});

export const IdentifierResponse = z.object({
  id: z.string(),
  type: z.string(),
  value: z.string(),
  verified: z.boolean(),
  primary: z.boolean(),
  label: z.string().nullable(),
  createdAt: z.string(),
});

export const UserResponse = z.object({
  id: z.string(),
  account: z.string(),
  email: z.string(),
  externalId: z.string().nullable(),
  assistant: z.string().nullable(),
  name: z.string().nullable(),
  firstName: z.string(),
  lastName: z.string(),
  avatarUrl: z.string().nullable(),
  timezone: z.string(),
  locale: z.string(),
  country: z.string().nullable(),
  city: z.string(),
  organization: z.string().nullable(),
  organizationRole: z.enum(['admin', 'member', 'guest']),
  team: z.object({ id: z.string(), name: z.string(), organization: z.string().nullable(), status: z.string() }).nullable(),
  teamRole: z.enum(['member', 'admin', 'owner']).nullable(),
  status: z.enum(['active', 'inactive', 'suspended']),
  voice: z.object({ voiceId: z.string(), provider: z.string() }).nullable(),
  metadata: z.record(z.string(), z.unknown()),
  firstLoginAt: z.string().nullable(),
  username: z.string().nullable(),
  preferences: UserPreferences,
  preferredProviders: z.record(z.string(), z.unknown()),
  preferredContactChannel: z.record(z.string(), z.unknown()),
  assistantName: z.string().nullable(),
  appName: z.string().nullable(),
  onboarded: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  identifiers: z.array(IdentifierResponse).optional(),
});
export type UserResponse = z.infer<typeof UserResponse>;

export const UserEnvelope = z.object({ ok: z.literal(true), user: UserResponse });

export const UserIdParams = z.object({ userId: z.string().min(1) });

const Email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be an email address' }));
export { Email };

export const ProvisionUserBody = z.object({
  email: Email,
  firstName: z.string().trim().max(200).optional(),
  lastName: z.string().trim().max(200).optional(),
  teamId: z.string().min(1).optional(),
  id: z.string().optional(),
});

export const ProvisionUserResponse = z.object({
  ok: z.literal(true),
  user: UserResponse,
  teamId: z.string().nullable(),
  created: z.boolean(),
  addedToTeam: z.boolean(),
  alreadyMember: z.boolean(),
  joinSkipped: z.boolean(),
});

const Timezone = z.string().refine(isTimezone, 'must be an IANA time zone such as Europe/Paris');

export function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const DeepPartialPreferences = z.object({
  reminders: z
    .object({
      level: UserPreferences.shape.reminders.shape.level.optional(),
      smartReminders: z.boolean().optional(),
      recipient: UserPreferences.shape.reminders.shape.recipient.partial().optional(),
    })
    .optional(),
  calendars: UserPreferences.shape.calendars.partial().optional(),
  email: ChannelPrefs.partial().optional(),
  slack: ChannelPrefs.partial().optional(),
  teams: ChannelPrefs.partial().optional(),
  desktop: ChannelPrefs.partial().optional(),
  checkInAfter: z.number().min(0).optional(),
});

export const UpdateProfileBody = z.object({
  name: z.string().trim().max(200).nullable().optional(),
  firstName: z.string().trim().max(200).optional(),
  lastName: z.string().trim().max(200).optional(),
  avatar: BrowserUrl.nullable().optional(),
  timezone: Timezone.optional(),
  locale: z.string().trim().min(2).max(35).optional(),
  country: z.string().trim().length(2).toUpperCase().nullable().optional(),
  city: z.string().trim().max(200).optional(),
  username: z.string().trim().max(100).nullable().optional(),
  assistantName: z.string().trim().max(200).nullable().optional(),
  preferences: DeepPartialPreferences.optional(),
  preferredProviders: z.record(z.string(), z.unknown()).optional(),
  preferredContactChannel: z.record(z.string(), z.unknown()).optional(),
});
