import { z } from 'zod';
import { controlOperators, handoffActionTypes, handoffCloseReasons, handoffStatuses, handoffUrlSources } from '@/db/schema';

/** Spec document 2, Limits. */
export const MAX_DEFER_MINUTES = 20_160;
export const MAX_RESOLVE_ITEMS = 50;
export const MAX_NOTE = 2_000;

/**
 * The control generation the caller last read (from `control` of a session call or the active
 * list). Optional: without it a call acts on whatever is current; with it (in the body, or as
 * `If-Match: "<generation>"`) a change of control meanwhile is a 409.
 */
const Generation = z.number().int().min(0).max(2_147_483_647).optional();

export const HandoffParams = z.object({ handoffId: z.string().min(1).max(100) });
export const ControlBody = z.object({ generation: Generation }).default({});
export const DeferBody = z.object({
  message: z.string({ message: 'is required' }).trim().min(1, 'is required').max(MAX_NOTE),
  deferMinutes: z.number().int().min(1).max(MAX_DEFER_MINUTES, `must be at most ${MAX_DEFER_MINUTES} (14 days)`).optional(),
  generation: Generation,
});
export const ResolveBody = z.object({
  items: z
    .array(
      z.object({
        handoffId: z.string().min(1).max(100),
        outcome: z.enum(['completed', 'declined', 'pending']),
        note: z.string().max(MAX_NOTE, `must be at most ${MAX_NOTE} characters`).optional(),
      }),
    )
    .min(1, 'must hold at least one item')
    .max(MAX_RESOLVE_ITEMS, `must hold at most ${MAX_RESOLVE_ITEMS} items`),
  generation: Generation,
});
export type ResolveInput = z.infer<typeof ResolveBody>;

export const Handoff = z.object({
  id: z.string(),
  taskId: z.string().nullable(),
  actionType: z.enum(handoffActionTypes),
  prompt: z.string(),
  targetUrl: z.string().nullable(),
  screenshotUrl: z.string().nullable(),
  status: z.enum(handoffStatuses),
  closeReason: z.enum(handoffCloseReasons).nullable(),
  urlSource: z.enum(handoffUrlSources),
  expiresAt: z.string(),
  createdAt: z.string(),
});
export const Control = z.object({ generation: z.number().int(), handoffId: z.string().nullable(), operator: z.enum(controlOperators) });

export const ActiveResponse = z.object({ ok: z.literal(true), handoffs: z.array(Handoff), handoff: Handoff.nullable(), control: Control });
export const LaunchResponse = z.object({ ok: z.literal(true), handoffId: z.string(), status: z.literal('starting') });
export const SessionResponse = z.object({ ok: z.literal(true), sessionUrl: z.string(), control: Control });
export const TaskIdResponse = z.object({ ok: z.literal(true), taskId: z.string().nullable() });
export const DeferResponse = z.object({ ok: z.literal(true), deferredUntil: z.string().nullable() });
export const ResolveResponse = z.object({
  ok: z.literal(true),
  resolved: z.array(z.object({ handoffId: z.string(), outcome: z.enum(['completed', 'declined']) })),
});
