import { z } from 'zod';

/*
 * The eight trigger kinds of a workflow (spec document 2: `on` values). The spec names them and a
 * few fields (cron's schedule and timezone, webhook events and delayOffset, timestamp offsets
 * relative to the matched event); the rest is Steward's design, documented in docs/workflows.md.
 * Durations are strings like `30s`, `15m`, `2h`, `7d` (or milliseconds), signed for offsets.
 */

const DURATION = /^-?\d+(ms|s|m|h|d|w)$/;
export const Duration = z.union([z.number().int(), z.string().trim().regex(DURATION, 'must be a duration like 30s, 15m, 2h, 7d (or milliseconds)')]);

const UNIT: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
export function durationMs(d: z.infer<typeof Duration>): number {
  if (typeof d === 'number') return d;
  const m = /^(-?\d+)(ms|s|m|h|d|w)$/.exec(d)!;
  return Number(m[1]) * UNIT[m[2]!]!;
}

export const workflowEventTypes = ['event.scheduled', 'event.cancelled', 'email.received'] as const;
export const WorkflowEventType = z.enum(workflowEventTypes);
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

const Timezone = z
  .string()
  .trim()
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as Europe/Paris');

export const CronTrigger = z.object({
  on: z.literal('cron'),
  schedule: z.object({
    frequency: z.enum(['minutely', 'hourly', 'daily', 'weekly', 'monthly']),
    /** Weekly: the days (MO…SU). */
    days: z.array(z.enum(DAYS)).min(1).max(7).optional(),
    /** Monthly: the day of the month (1–31; short months skip it). */
    dayOfMonth: z.number().int().min(1).max(31).optional(),
    hour: z.number().int().min(0).max(23).optional(),
    minute: z.number().int().min(0).max(59).optional(),
  }),
  timezone: Timezone.optional(),
});

/** Matches a calendar or email event by a few of its fields (all must match, case-insensitive substring). */
const EventFilter = z.object({ from: z.string().max(320).optional(), subject: z.string().max(200).optional(), title: z.string().max(200).optional() }).optional();

export const WebhookTrigger = z.object({
  on: z.literal('webhook'),
  event: WorkflowEventType,
  /** Fire this long after the event instead of at once. */
  delayOffset: Duration.optional(),
  filter: EventFilter,
});

export const TimestampTrigger = z.object({
  on: z.literal('timestamp'),
  event: z.literal('event.scheduled').default('event.scheduled'),
  field: z.enum(['startTime', 'endTime']).default('startTime'),
  /** Relative to that time: `-30m` is thirty minutes before. */
  offset: Duration,
  filter: EventFilter,
});

export const ConditionTrigger = z.object({
  on: z.literal('condition'),
  /**
   * A CEL expression over the owner's state: `openTasks`, `tasksAwaitingUser`, `pendingApprovals`,
   * `unreadEmails` (email messages in the last 24 h) — numbers. Fires when it turns true.
   */
  expression: z.string().trim().min(1).max(500),
  every: Duration.optional(),
});

export const InactivityTrigger = z.object({
  on: z.literal('inactivity'),
  event: WorkflowEventType,
  /** Fires when no such event happened within this window (then the window starts again). */
  within: Duration,
  filter: EventFilter,
});

export const SystemTrigger = z.object({
  on: z.literal('system'),
  /** Another workflow, by name or id. */
  workflow: z.string().trim().min(1).max(100),
  outcome: z.enum(['completed', 'failed', 'any']).default('any'),
});

export const ManualTrigger = z.object({ on: z.literal('manual') });

/** The kinds a compound trigger combines (one level: a compound holds no compound). */
export const LeafTrigger = z.discriminatedUnion('on', [CronTrigger, WebhookTrigger, TimestampTrigger, ConditionTrigger, InactivityTrigger, SystemTrigger, ManualTrigger]);

export const CompoundTrigger = z.object({
  on: z.literal('compound'),
  op: z.enum(['and', 'or']),
  /** `and` fires once every part fired within `within` (default 1h) of the others; `or` when any part fires. */
  triggers: z.array(LeafTrigger).min(2).max(10),
  within: Duration.optional(),
});

export const Trigger = z.discriminatedUnion('on', [CronTrigger, WebhookTrigger, TimestampTrigger, ConditionTrigger, InactivityTrigger, SystemTrigger, ManualTrigger, CompoundTrigger], {
  error: 'on must be one of cron, webhook, timestamp, condition, inactivity, system, compound, manual, with that kind’s fields',
});
export type TriggerDef = z.infer<typeof Trigger>;

/** Recurring when a trigger repeats on its own (cron, condition, inactivity), else trigger-based. */
export function inferScheduleType(triggers: TriggerDef[]): 'recurring' | 'trigger-based' {
  const repeats = (t: TriggerDef): boolean => t.on === 'cron' || t.on === 'condition' || t.on === 'inactivity' || (t.on === 'compound' && t.triggers.some(repeats));
  return triggers.some(repeats) ? 'recurring' : 'trigger-based';
}
