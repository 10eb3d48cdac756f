import { z } from 'zod';

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM in 24-hour time');
const Slot = z
  .object({ start: HHMM, end: HHMM })
  .refine((s) => s.start < s.end, { message: 'start must be before end', path: ['end'] });

export const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export const WorkingHours = z
  .object(Object.fromEntries(DAYS.map((d) => [d, z.array(Slot).optional()])) as Record<(typeof DAYS)[number], z.ZodOptional<z.ZodArray<typeof Slot>>>)
  .strict()
  .refine((wh) => DAYS.some((d) => (wh[d]?.length ?? 0) > 0), { message: 'working hours need at least one slot on some day' });

/**
 * The full object PUT replaces. Beyond workingHours the spec does not show its fields;
 * these are the ones a scheduler needs, each with a default.
 */
export const SchedulingPreferences = z.object({
  availability: z
    .object({
      workingHours: WorkingHours.optional(),
    })
    .default({}),
  defaultMeetingDurationMin: z.number().int().min(5).max(480).default(30),
  bufferBetweenMeetingsMin: z.number().int().min(0).max(240).default(0),
  minimumNoticeMin: z.number().int().min(0).max(10080).default(60),
  allowBackToBack: z.boolean().default(true),
});

export const PutSchedulingBody = z.object({ schedulingPreferences: SchedulingPreferences });

const DayHours = z.array(z.object({ start: z.string(), end: z.string() }));
export const SchedulingResponse = z.object({
  ok: z.literal(true),
  schedulingPreferences: z.object({
    availability: z.object({ workingHours: z.record(z.string(), DayHours) }),
    defaultMeetingDurationMin: z.number(),
    bufferBetweenMeetingsMin: z.number(),
    minimumNoticeMin: z.number(),
    allowBackToBack: z.boolean(),
  }),
  workingHoursSaved: z.boolean(),
});
