import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { identifiers, identifierVerifications, type IdentifierRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { AppError, badRequest, conflict, notFound } from '@/server/http/errors';
import { sendMail } from '@/server/mail/mailer';
import { ensureAppSecret } from '@/server/secrets/app-secret';
import { toPublicIdentifier } from '@/server/user-record/present';
import { lookUpCapabilities, type IdentifierHooks } from './capabilities';
import { consumeCodeRequest, countWrongCode, WRONG_CODES_PER_DESTINATION, wrongCodesFor } from './verification-limit';

/*
 * Proving an identifier with a one-time code (spec 1: "User-scoped callers verify through a
 * one-time-code flow in the hosted app"; spec 5: the two endpoints). An email address gets it by
 * mail; a phone by SMS, through the sender the entry floor registers when an SMS provider is
 * configured (server/compose/channels.ts: this area sits below the channels). Without one a phone
 * answers 409 sms_not_configured. The same rules either way: 6 digits, hashed, single use, 10
 * minutes, 5 wrong tries per destination (a new code does not bring them back within the window),
 * 5 codes per destination every 15 minutes (verification-limit.ts).
 */

/** Sends a code by SMS (`configured`: whether an SMS provider is set up now); `not_configured` when no number can send it. Never keeps the text. */
export type PhoneCodeSender = {
  configured: () => boolean;
  send: (db: Db, code: { accountId: string; userId: string; identifierId: string; to: string; text: string }) => Promise<{ status: 'sent' } | { status: 'not_configured'; reason: string } | { status: 'failed'; reason: string }>;
};
let phoneCodes: PhoneCodeSender | null = null;

export function registerPhoneCodeSender(fn: PhoneCodeSender | null): void {
  phoneCodes = fn;
}

export const CODE_TTL_MS = 10 * 60_000;
export const MAX_WRONG_CODES = 5;

/** The caller's own identifier; anyone else's (another user's, another account's) is 404. */
async function ownIdentifier(db: Tx, actor: UserActor, id: string): Promise<IdentifierRow> {
  const [row] = await db
    .select()
    .from(identifiers)
    .where(and(eq(identifiers.id, id), eq(identifiers.accountId, actor.accountId), eq(identifiers.userId, actor.user.id)))
    .limit(1);
  if (!row) throw notFound('Identifier');
  return row;
}

/** Keyed by a deployment secret wrapped with the master key: a dump of the table cannot be tried against the million codes. */
async function codeHash(db: Db, identifierId: string, code: string): Promise<string> {
  const secret = await ensureAppSecret(db, 'identifier-codes', () => randomBytes(32).toString('hex'));
  return createHmac('sha256', secret).update(`${identifierId}:${code}`).digest('hex');
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

const SMS_NOT_CONFIGURED = (why = 'no SMS provider is configured on this deployment') => conflict(`Phone numbers are verified by SMS, and ${why}`, {}, 'sms_not_configured');

/** Which identifiers a code can be sent to: email addresses, and phones where SMS is configured. */
function assertVerifiable(identifier: IdentifierRow) {
  if (identifier.verified) throw conflict('This identifier is already verified', {}, 'already_verified');
  if (identifier.type === 'phone') {
    if (!phoneCodes?.configured()) throw SMS_NOT_CONFIGURED();
    return;
  }
  if (identifier.type !== 'email') throw badRequest(`A ${identifier.type} identifier has no code to receive; only email addresses and phone numbers are verified this way`, {}, 'not_verifiable');
}

const smsText = (code: string) => `Your verification code is ${code}. It works once, for 10 minutes. If you did not ask for it, ignore this message.`;

/**
 * Stores a fresh code for the identifier (replacing any earlier one, its wrong tries forgotten)
 * and returns it. Exported for the flow below and for tests that need a code without a mailbox.
 */
export async function issueCode(db: Db, identifier: Pick<IdentifierRow, 'id' | 'accountId' | 'userId'>, now = new Date()): Promise<{ code: string; expiresAt: Date }> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
  const row = { accountId: identifier.accountId, userId: identifier.userId, codeHash: await codeHash(db, identifier.id, code), failedAttempts: 0, expiresAt, createdAt: now };
  await db
    .insert(identifierVerifications)
    .values({ identifierId: identifier.id, ...row })
    .onConflictDoUpdate({ target: identifierVerifications.identifierId, set: row });
  return { code, expiresAt };
}

const mailText = (code: string, value: string) =>
  [
    `Your verification code is ${code}`,
    '',
    `Enter it where you added ${value} to confirm that this address is yours. It works once, for 10 minutes.`,
    'If you did not ask for it, ignore this message: nothing changes without the code.',
  ].join('\n');

/**
 * POST /identifiers/{identifierId}/verification: sends a 6-digit code to the address. `ip` is the
 * client address (the kernel's, or the hosted app's); null only where none is known.
 */
export async function requestVerification(db: Db, actor: UserActor, identifierId: string, ip: string | null) {
  const identifier = await ownIdentifier(db, actor, identifierId);
  assertVerifiable(identifier);
  await consumeCodeRequest(db, { accountId: actor.accountId, userId: actor.user.id, type: identifier.type, value: identifier.value, ip });
  const { code, expiresAt } = await issueCode(db, identifier);
  if (identifier.type === 'phone') {
    const sent = await phoneCodes!.send(db, { accountId: actor.accountId, userId: actor.user.id, identifierId: identifier.id, to: identifier.value, text: smsText(code) });
    if (sent.status === 'sent') return { ok: true as const, expiresAt: expiresAt.toISOString() };
    await db.delete(identifierVerifications).where(eq(identifierVerifications.identifierId, identifier.id));
    if (sent.status === 'not_configured') throw SMS_NOT_CONFIGURED(sent.reason);
    throw new AppError(503, 'sms_not_sent', `The code could not be texted: ${sent.reason}`);
  }
  // The outbox keeps a copy of every notice: never this code.
  const sent = await sendMail(db, { accountId: actor.accountId, to: identifier.value, subject: 'Your verification code', text: mailText(code, identifier.value), redact: [code] });
  if (sent.status === 'failed') {
    await db.delete(identifierVerifications).where(eq(identifierVerifications.identifierId, identifier.id));
    throw new AppError(503, 'mail_not_sent', 'The mail server refused the message; try again in a moment');
  }
  return { ok: true as const, expiresAt: expiresAt.toISOString() };
}

const invalidCode = (spent: boolean) =>
  badRequest(spent ? 'Wrong code too many times: ask for a new code' : 'That code is wrong or has expired', {}, 'invalid_code');

/**
 * POST /identifiers/{identifierId}/verify: the code sent last, within 10 minutes and before 5 wrong
 * tries, marks the identifier verified and is used up. A wrong try is counted even though the
 * call fails (the count commits before the refusal is thrown).
 */
export async function verifyIdentifier(db: Db, actor: UserActor, identifierId: string, code: string, now = new Date(), hooks?: IdentifierHooks) {
  const identifier = await ownIdentifier(db, actor, identifierId);
  if (identifier.verified) return { ok: true as const, identifier: toPublicIdentifier(identifier) };
  const hash = await codeHash(db, identifier.id, code);
  // Tries are the destination's, whichever code and identifier row they were made against.
  if ((await wrongCodesFor(db, identifier)) >= WRONG_CODES_PER_DESTINATION) throw invalidCode(true);
  const outcome = await db.transaction(async (tx) => {
    const [pending] = await tx.select().from(identifierVerifications).where(eq(identifierVerifications.identifierId, identifier.id)).for('update');
    if (!pending || pending.expiresAt <= now || pending.failedAttempts >= MAX_WRONG_CODES) return { ok: false as const, spent: pending?.failedAttempts === MAX_WRONG_CODES };
    if (!sameHash(pending.codeHash, hash)) {
      const [after] = await tx
        .update(identifierVerifications)
        .set({ failedAttempts: sql`${identifierVerifications.failedAttempts} + 1` })
        .where(eq(identifierVerifications.identifierId, identifier.id))
        .returning({ failedAttempts: identifierVerifications.failedAttempts });
      return { ok: false as const, wrong: true, spent: after.failedAttempts >= MAX_WRONG_CODES };
    }
    await tx.delete(identifierVerifications).where(eq(identifierVerifications.identifierId, identifier.id));
    const [verified] = await tx.update(identifiers).set({ verified: true }).where(eq(identifiers.id, identifier.id)).returning();
    return { ok: true as const, identifier: verified };
  });
  if (!outcome.ok) {
    const pending = 'wrong' in outcome && outcome.wrong;
    const tried = pending ? await countWrongCode(db, identifier) : 0;
    throw invalidCode(outcome.spent || tried >= WRONG_CODES_PER_DESTINATION);
  }
  // A number just proven is looked up where a provider offers it (capabilities.ts), after the commit.
  return { ok: true as const, identifier: toPublicIdentifier(await lookUpCapabilities(db, outcome.identifier, hooks)) };
}
