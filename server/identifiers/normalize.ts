import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { badRequest } from '@/server/http/errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Emails lower-cased and checked; phones in E.164, parsed with the user's country when there is
 * no leading +. An email-shaped value of any other type is lower-cased too, so the unique index
 * on (account, value) sees `CEO@corp.test` as custom and `ceo@corp.test` as email as one address.
 */
export function normalizeValue(type: string, value: string, country: string | null): string {
  if (type === 'email') {
    const v = value.trim().toLowerCase();
    if (!EMAIL.test(v)) throw badRequest('value: must be an email address');
    return v;
  }
  if (type === 'phone') {
    const phone = parsePhoneNumberFromString(value, value.trim().startsWith('+') ? undefined : ((country ?? undefined) as CountryCode | undefined));
    if (!phone || !phone.isValid()) throw badRequest('value: not a valid phone number (use E.164, or a national number in the user’s country)', {}, 'invalid_phone');
    return phone.number;
  }
  const v = value.trim();
  return EMAIL.test(v) ? v.toLowerCase() : v;
}
