import { z } from 'zod';
import { BrowserUrl } from '@/server/http/browser-url';
import { calendarProviders } from '@/db/schema/calendars';
import { ChannelPrefs, NOTICE_CHANNELS, NotificationPrefs, UserPreferences } from '@/server/user-record/contracts';

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
  notifications: NotificationPrefs.partial().optional(),
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
  preferredProviders: z
    .object({ calendar: z.enum(calendarProviders).nullable().optional().describe('Where a new event goes when the assistant names no calendar and several are connected') })
    .catchall(z.unknown())
    .optional()
    .describe('Providers you prefer when several are connected; Steward reads `calendar`, other keys are kept for your own use'),
  preferredContactChannel: z
    .object({ channel: z.enum(NOTICE_CHANNELS).nullable().optional().describe('Where notices reach you unless preferences.notifications.channel names another') })
    .catchall(z.unknown())
    .optional()
    .describe('How you prefer to be reached; Steward reads `channel`, other keys are kept for your own use'),
  voice: z
    .object({ provider: z.string().trim().min(1), voiceId: z.string().trim().min(1) })
    .nullable()
    .optional()
    .describe('The voice your assistants speak with (calls, live voice) when an assistant names none of its own for that provider; GET /voice/providers lists them'),
});

/** Marking onboarded takes no fields; an empty object or no body at all. */
export const MarkOnboardedBody = z.object({}).optional();
