import { badRequest } from '@/server/http/errors';
import { Email } from '@/server/user-record/contracts';

/**
 * The one form of an address entered to sign in: the SSO routing, the rate limiter's key,
 * next-auth's identifier (its normalizeIdentifier) and the mail's recipient all use it. Only a
 * single plain address passes: next-auth's own lenient normalizer turned `alice@acme.test,1`
 * into alice's address after the limiter had counted it as a new one.
 */
export function signInAddress(raw: unknown): string {
  const parsed = Email.safeParse(raw);
  if (!parsed.success) throw badRequest('email: must be a single email address', { fields: [{ field: 'email', problem: 'must be a single email address' }] });
  return parsed.data;
}

/**
 * The mailbox an address delivers to, for counting only: `alice+1@x` and `alice+2@x` land in
 * alice's inbox, so they share her allowance.
 */
export const mailboxKey = (address: string) => {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at).split('+')[0]}${address.slice(at)}`;
};
