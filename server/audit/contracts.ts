import { z } from 'zod';
import { auditActorTypes } from '@/db/schema';
import { AUDIT_ACTIONS } from './actions';

const Timestamp = z.iso.datetime({ offset: true });

export const AuditEventsQuery = z
  .object({
    action: z.enum(AUDIT_ACTIONS).optional().describe('Only events of this action'),
    actorId: z.string().min(1).max(200).optional().describe('Only events of this actor (an API key, certificate kid, user or run id)'),
    targetId: z.string().min(1).max(200).optional().describe('Only events about this resource'),
    since: Timestamp.optional().describe('Only events at or after this time (ISO 8601)'),
    until: Timestamp.optional().describe('Only events before this time (ISO 8601)'),
    limit: z.coerce.number().int().min(1).max(100).default(50).describe('Events per page (at most 100)'),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be the cursor of a previous page')
      .optional()
      .describe('The `cursor` of the previous page: the events after it, newest first'),
  })
  .refine((q) => !q.since || !q.until || Date.parse(q.since) < Date.parse(q.until), { message: 'since must be before until', path: ['since'] });

export const AuditEventSchema = z
  .object({
    id: z.string(),
    occurredAt: z.string(),
    action: z.string().meta({ description: '`<resource>.<verb>`, e.g. api_key.created, sign_in.failed, kill_switch.changed' }),
    actor: z.object({ type: z.enum(auditActorTypes), id: z.string().nullable(), email: z.string().optional() }),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    accountId: z.string(),
    organizationId: z.string().optional(),
    ip: z.string().optional(),
    userAgent: z.string().optional(),
    requestId: z.string().optional(),
    changes: z.object({ before: z.record(z.string(), z.unknown()).nullable(), after: z.record(z.string(), z.unknown()).nullable() }).optional().meta({ description: 'Settings before and after (never a secret)' }),
  })
  .meta({ description: 'One security-relevant action (spec 5, Audit events)' });

export const AuditEventsResponse = z.object({
  ok: z.literal(true),
  events: z.array(AuditEventSchema),
  hasMore: z.boolean(),
  cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});
