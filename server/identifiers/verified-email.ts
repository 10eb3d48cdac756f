/**
 * "Who is this email address" for the identity and resource areas: the user holding it as a
 * verified email identifier. The rule itself sits on the access floor (act-as needs it too),
 * so there is exactly one definition of it.
 */
export { findUserByVerifiedEmail, findUsersByVerifiedEmails, normalizeEmail } from '@/server/access/verified-email';
