import { z } from 'zod';
import { autonomyModes, timeBoxedExpiries } from '@/db/schema';
import { ACTION_TYPES } from './contracts';

const Mode = z.enum(autonomyModes, { message: `must be one of ${autonomyModes.join(', ')}` });
const Expiry = z.enum(timeBoxedExpiries, { message: `must be one of ${timeBoxedExpiries.join(', ')}` });
const ActionType = z.enum(ACTION_TYPES, { message: `must be one of ${ACTION_TYPES.join(', ')}` });
/**
 * Minutes a time-boxed action waits for review (spec 2: a number of minutes, so 0.5 is half a
 * minute): at least one second, at most a week.
 */
const WindowMin = z
  .number({ message: 'must be a number of minutes' })
  .min(1 / 60, 'must be at least one second (1/60 of a minute)')
  .max(10_080, 'must be at most 10080 minutes (a week)');
/** Seconds an irreversible action is held after release: 0 sends at once, at most an hour. */
const UndoDelaySec = z.number().int().min(0).max(3600);

export const UserIdParams = z.object({ userId: z.string().min(1) });
export const ExceptionParams = z.object({ userId: z.string().min(1), exceptionId: z.string().min(1) });

/** One cell of a PATCH: each field present replaces the user's own value, null clears it (it inherits again). */
const CellPatch = z
  .object({
    mode: Mode.nullable().optional(),
    timeBoxedWindowMin: WindowMin.nullable().optional(),
    timeBoxedExpiry: Expiry.nullable().optional(),
    undoDelaySec: UndoDelaySec.nullable().optional(),
  })
  .strict();

export const MatrixPatchBody = z
  .object({
    /** action type → cell changes; a null cell clears every field of the user's own cell. */
    matrix: z.object(Object.fromEntries(ACTION_TYPES.map((a) => [a, CellPatch.nullable().optional()])) as Record<(typeof ACTION_TYPES)[number], z.ZodOptional<z.ZodNullable<typeof CellPatch>>>).strict(),
  })
  .strict();

const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/, 'must be a bare domain such as example.org');
const Address = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => z.email().safeParse(v).success || /^\+[1-9]\d{6,14}$/.test(v), 'must be an email address or an E.164 phone number');

export const ExceptionBody = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    match: z.discriminatedUnion('kind', [z.object({ kind: z.literal('domain'), value: Domain }), z.object({ kind: z.literal('address'), value: Address })], {
      error: "kind must be 'domain' or 'address'",
    }),
    mode: Mode,
    timeBoxedWindowMin: WindowMin.nullable().optional(),
    timeBoxedExpiry: Expiry.nullable().optional(),
    undoDelaySec: UndoDelaySec.nullable().optional(),
    appliesTo: z
      .array(ActionType)
      .min(1, 'must list at least one action type')
      .refine((a) => new Set(a).size === a.length, 'must not repeat an action type'),
  })
  .strict();

const Source = z.enum(['lock', 'user', 'team', 'organization', 'account', 'default']);
export const SupervisionCell = z.object({
  mode: Mode,
  timeBoxedWindowMin: z.number().nullable(),
  timeBoxedExpiry: Expiry,
  undoDelaySec: z.number().int(),
  /** Where the mode comes from: `user` is the user's own value; anything else is inherited or locked. */
  source: Source,
});
const LockedValue = z.object({ mode: Mode, timeBoxedWindowMin: z.number().nullable() });

export const SupervisionMatrixResponse = z.object({
  ok: z.literal(true),
  supervisionMatrix: z.object({
    matrix: z.record(z.string(), SupervisionCell),
    matrixUpdatedAt: z.string().nullable(),
    parentLockedCells: z.array(z.string()),
    orgLockedCells: z.array(z.string()),
    teamLockedCells: z.array(z.string()),
    lockedValues: z.record(z.string(), LockedValue),
  }),
});

export const RecipientException = z.object({
  id: z.string(),
  label: z.string(),
  match: z.object({ kind: z.enum(['domain', 'address']), value: z.string() }),
  mode: Mode,
  timeBoxedWindowMin: z.number().nullable(),
  timeBoxedExpiry: Expiry.nullable(),
  undoDelaySec: z.number().int().nullable(),
  appliesTo: z.array(z.string()),
  createdAt: z.string(),
});
export const ExceptionEnvelope = z.object({ ok: z.literal(true), recipientException: RecipientException });
export const ExceptionListResponse = z.object({ ok: z.literal(true), recipientExceptions: z.array(RecipientException) });
export const DeletedExceptionResponse = z.object({ ok: z.literal(true), recipientException: z.object({ id: z.string(), deleted: z.literal(true) }) });
