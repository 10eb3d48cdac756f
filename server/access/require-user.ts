import type { UserRow } from '@/db/schema';
import { unauthorized } from '@/server/http/errors';
import type { Actor } from './actor';

/**
 * The message the kernel answers for an endpoint of auth level `user` called without one.
 * Services repeat the check because they are reached through other doors too (tRPC,
 * Inngest functions, endpoints of level `any`), and every door must give the same answer.
 */
export const NEEDS_USER_MESSAGE = 'This call acts as a user: use a user key, or an account key with X-User-Email';

/** The user this call acts as; 401 `unauthorized` when the credential acts as no user. */
export function requireUser(actor: Actor): UserRow {
  if (!actor.user) throw unauthorized(NEEDS_USER_MESSAGE);
  return actor.user;
}
