import { z } from 'zod';
import { noticeChannels } from '@/db/schema/channel-names';

/*
 * A user as every area shows one: the public shape (with its identifiers and preferences)
 * and the inputs that name a user. The /users API's own requests are in server/users/.
 */

export const ChannelPrefs = z.object({
  enabled: z
    .boolean()
    .describe('email, slack, teams: whether notices may reach you there (default true; off falls back to email, and with email off too a notice is shown in the app only); desktop: the hosted app’s desktop notifications (default false)'),
  virtualDuration: z.number(),
  inPersonDuration: z.number(),
});

/** The per-channel preferences (spec 1): whether the channel is on, and how long a meeting booked through it lasts. */
export const PerChannelPrefs = z.object({ email: ChannelPrefs, slack: ChannelPrefs, teams: ChannelPrefs, desktop: ChannelPrefs });

/** Where notices of what needs the user go (approvals, questions, handoffs, failures), and whether non-urgent ones wait for working hours. */
export const NOTICE_CHANNELS = noticeChannels;
export const NotificationPrefs = z.object({
  channel: z.enum(NOTICE_CHANNELS).describe('Where notices go (default email); a channel the user cannot be reached on falls back to email'),
  quietHours: z.boolean().describe('Hold non-urgent notices outside the user’s working hours (default true); urgent ones (a review window about to end) go at once'),
  approvalsByText: z
    .boolean()
    .describe('Also text each approval request to the user’s verified phone with a code: “YES 1234” approves that exact version, “NO 1234” rejects (default false)'),
});

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
  ...PerChannelPrefs.shape,
  checkInAfter: z.number(),
  notifications: NotificationPrefs,
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

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be an email address' }));
