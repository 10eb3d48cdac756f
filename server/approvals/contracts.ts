import { z } from 'zod';
import { autonomyModes, cartStatuses, dispatchDeliveryStates, dispatchTypes, taintKinds, timeBoxedExpiries } from '@/db/schema';
import { ACTION_TYPES } from '@/server/policy/contracts';

/** The spec's limit on GET /portal/carts. */
export const MAX_CARTS_LISTED = 50;
/** What GET /portal/carts may filter on, and its default (both). */
export const LISTABLE_STATUSES = ['pending_approval', 'time_boxed'] as const;

const MAX_TEXT = 100_000;
const MAX_RECIPIENTS = 100;

const IsoWithOffset = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' });
const inFuture = (v: string | null | undefined) => v === undefined || v === null || new Date(v).getTime() > Date.now();
const JsonObject = z.record(z.string(), z.unknown());

/*
 * Fields that end up in a mail header (a subject, a recipient, a calendar event's title, which
 * becomes its invitation's Subject) are one line. A CR or LF in one is refused where it is staged
 * or edited, naming the field, rather than left to the mailer to fold or strip: what the person
 * approves is then exactly the header that is sent, and no text can add a header of its own.
 */
const LINE_BREAK = /[\r\n]/;
const ONE_LINE = 'must be one line: no carriage return or line feed';
const HeaderLine = (max: number) => z.string().max(max).refine((v) => !LINE_BREAK.test(v), ONE_LINE);
const Subject = HeaderLine(2_000);
const Recipients = z
  .array(
    z
      .string()
      // Before trim: a trailing line break is refused too, not quietly cut off.
      .refine((v) => !LINE_BREAK.test(v), ONE_LINE)
      .trim()
      .min(1, 'must not be empty')
      .max(320),
  )
  .max(MAX_RECIPIENTS, `must have at most ${MAX_RECIPIENTS} entries`);

/**
 * A calendar event's title (payload.title, as create_calendar_event stages it) is one line too.
 * A skill action keeps its arguments under payload.arguments, so a top-level title is a calendar's.
 */
const titleIsOneLine = (payload: Record<string, unknown> | null | undefined, ctx: z.RefinementCtx) => {
  const title = payload?.title;
  if (typeof title === 'string' && LINE_BREAK.test(title)) ctx.addIssue({ code: 'custom', path: ['payload', 'title'], message: ONE_LINE });
};

/** `status=pending_approval,time_boxed`: each listed value must be one of the two; each bad one is named. */
export const ListCartsQuery = z.object({
  status: z
    .string()
    .max(200)
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return [...LISTABLE_STATUSES];
      const values = raw.split(',').map((v) => v.trim());
      const bad = values.filter((v) => !(LISTABLE_STATUSES as readonly string[]).includes(v));
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `${bad.map((v) => `'${v}'`).join(', ')} is not a status you can list: use ${LISTABLE_STATUSES.join(', ')}` });
        return z.NEVER;
      }
      return [...new Set(values)] as (typeof LISTABLE_STATUSES)[number][];
    }),
});

export const CartParams = z.object({ cartId: z.string().min(1).max(100) });
export const DispatchParams = CartParams.extend({
  index: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a dispatch index (0, 1, 2…)')
    .transform(Number),
});

export const ApproveCartBody = z.object({
  /** Required (400 `content_hash_required` when missing or empty): the contentHash of the latest read. */
  contentHash: z.string().max(200).optional(),
  reason: z.string().max(MAX_TEXT).optional(),
});

export const CancelCartBody = z.object({ reason: z.string().max(MAX_TEXT).optional() });

/**
 * PATCH .../edit: the text and validity of a dispatch. Recipients and payload are accepted by the
 * schema only so the service can answer a change to them with 400 `edit_not_supported`.
 */
export const EditDispatchBody = z
  .object({
    subject: Subject.optional(),
    body: z.string().max(MAX_TEXT).optional(),
    validUntil: IsoWithOffset.nullable().optional(),
    evergreen: z.boolean().optional(),
    to: z.unknown().optional(),
    cc: z.unknown().optional(),
    bcc: z.unknown().optional(),
    payload: z.unknown().optional(),
  })
  .refine((b) => inFuture(b.validUntil), { path: ['validUntil'], message: 'must be in the future' });

/** PATCH .../dispatches/{index}: the content itself, recipients and payload included. */
export const UpdateDispatchBody = z
  .object({
    subject: Subject.optional(),
    body: z.string().max(MAX_TEXT).optional(),
    to: Recipients.optional(),
    cc: Recipients.optional(),
    bcc: Recipients.optional(),
    payload: JsonObject.nullable().optional(),
  })
  .superRefine((b, ctx) => titleIsOneLine(b.payload, ctx));

/** The hosted approvals page's inline edit: subject and body only, the subject one line as above. */
export const InlineEditBody = z.object({ subject: Subject.optional(), body: z.string().max(MAX_TEXT).optional() });

/**
 * Delivery states as the API shows them: the schema's, and `undone` (the person undid the action
 * within its undo window; nothing was sent).
 */
export const DELIVERY_STATES = [...dispatchDeliveryStates, 'undone'] as const;

const DispatchFile = z.object({ filename: z.string().min(1).max(500), mimeType: z.string().min(1).max(200), size: z.number().int().min(0), fileId: z.string().min(1).max(100) });

/**
 * What the runtime stages (server/approvals/staging.ts), one dispatch at a time. `from` is not
 * part of it: the sender follows from the action type (the assistant's or the user's address).
 */
export const StagedDispatchInput = z
  .object({
    type: z.enum(dispatchTypes),
    platform: z.string().trim().min(1).max(50),
    actionType: z.enum(ACTION_TYPES),
    to: Recipients.default([]),
    cc: Recipients.default([]),
    bcc: Recipients.default([]),
    subject: Subject.nullable().default(null),
    body: z.string().max(MAX_TEXT).nullable().default(null),
    description: z.string().max(MAX_TEXT).nullable().default(null),
    payload: JsonObject.nullable().default(null),
    files: z.array(DispatchFile).max(50).default([]),
    validUntil: IsoWithOffset.nullable().default(null),
    evergreen: z.boolean().default(false),
  })
  .superRefine((d, ctx) => {
    if (d.type === 'calendar_event') titleIsOneLine(d.payload, ctx);
  });
export type StagedDispatch = z.input<typeof StagedDispatchInput>;

const HeldBecauseResponse = z.object({
  kind: z.literal('untrusted_input'),
  sources: z.array(z.object({ kind: z.enum(taintKinds), ref: z.string() })),
});

const DispatchResponse = z.object({
  index: z.number().int(),
  type: z.enum(dispatchTypes),
  platform: z.string(),
  /** The autonomy matrix's action type that decided how it is released. */
  actionType: z.string(),
  from: z.string().nullable(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string().nullable(),
  body: z.string().nullable(),
  description: z.string().nullable(),
  payload: JsonObject.nullable(),
  files: z.array(DispatchFile),
  editedByUser: z.boolean(),
  currentVersionId: z.string(),
  validUntil: z.string().nullable(),
  evergreen: z.boolean(),
  deliveryState: z.enum(DELIVERY_STATES),
  /** Why it waits for a person whatever the autonomy settings say: the run read content from outside (spec 5, Taint and held dispatches). */
  heldBecause: HeldBecauseResponse.nullable(),
});

export const CartResponse = z.object({
  id: z.string(),
  taskId: z.string(),
  taskTitle: z.string(),
  assistantName: z.string().nullable(),
  status: z.enum(cartStatuses),
  resolvedApprovalMode: z.enum(autonomyModes).nullable(),
  timeBoxedExpiresAt: z.string().nullable(),
  timeBoxedExpiry: z.enum(timeBoxedExpiries).nullable(),
  dispatches: z.array(DispatchResponse),
  contentHash: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const CartEnvelope = z.object({ ok: z.literal(true), cart: CartResponse });
export const ListCartsResponse = z.object({ ok: z.literal(true), carts: z.array(CartResponse) });
export const ApproveCartResponse = z.object({ ok: z.literal(true), cartId: z.string(), status: z.literal('approved') });
export const CancelCartResponse = z.object({ ok: z.literal(true), cartId: z.string(), status: z.literal('cancelled') });

export const SnapshotsResponse = z.object({
  ok: z.literal(true),
  cartId: z.string(),
  count: z.number().int(),
  snapshots: z.array(
    z.object({
      dispatchIndex: z.number().int(),
      dispatchType: z.enum(dispatchTypes),
      /** What the action created or sent: `email`, `message`, `calendar_event`, `skill_action`. */
      resourceType: z.string(),
      versionId: z.string(),
      deliveryState: z.enum(DELIVERY_STATES),
      /** An email's Message-ID (`<id@host>`), or the provider's id of a message. */
      providerMessageId: z.string().nullable(),
      /** When the send was attempted; null while the action is held for undo. */
      executedAt: z.string().nullable(),
      /** Why it was not delivered (failed), or why its delivery is not known (unknown). */
      failureReason: z.string().nullable(),
      /** Whether the action can still be undone (held within its undo window), and until when. */
      canUndo: z.boolean(),
      undoableUntil: z.string().nullable(),
    }),
  ),
});

export const UndoDispatchResponse = z.object({
  ok: z.literal(true),
  cartId: z.string(),
  dispatchIndex: z.number().int(),
  /** Always `undone`: the action will not be sent. */
  deliveryState: z.literal('undone'),
});
