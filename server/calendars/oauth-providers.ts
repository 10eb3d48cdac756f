import type { Tx } from '@/db/client';
import type { CalendarConnectionRow, CalendarGrantRow } from '@/db/schema';
import { grantById, grantHolder, type CalendarAccessCall } from './grants';
import { googleProvider } from './google/provider';
import { graphProvider } from './graph/provider';
import { calendarAccessToken } from './oauth-tokens';
import { CalendarUnreachable, type CalendarProvider } from './provider';

/*
 * The port of a Google or Microsoft calendar connection: the provider adapter over the grant the
 * connection points at. (CalDAV connections get theirs from their own URL and password.)
 */

export function providerForGrant(db: Tx, grant: Pick<CalendarGrantRow, 'id' | 'provider'>, access?: CalendarAccessCall): CalendarProvider {
  return grant.provider === 'google' ? googleProvider(db, grant, undefined, access) : graphProvider(db, grant, undefined, access);
}

async function usableGrant(db: Tx, connection: Pick<CalendarConnectionRow, 'provider' | 'grantId'>) {
  if (connection.provider === 'caldav' || !connection.grantId) throw new Error(`not an OAuth calendar connection: ${connection.provider}`);
  const grant = await grantById(db, connection.grantId);
  if (!grant) throw new CalendarUnreachable('The calendar’s authorization was removed: connect it again');
  if (grant.authError) throw new CalendarUnreachable(`The calendar must be connected again: ${grant.authErrorReason ?? 'the provider refuses its tokens'}`);
  return grant;
}

/** The adapter of an OAuth connection; CalendarUnreachable when its grant is gone or no longer honoured. */
export async function oauthProviderFor(db: Tx, connection: Pick<CalendarConnectionRow, 'provider' | 'grantId'>): Promise<CalendarProvider> {
  return providerForGrant(db, await usableGrant(db, connection));
}

/**
 * The adapter over one access token taken now (good for a minute at least, never refreshed), for
 * the calls made once the grant is gone: a disconnect deletes the grant with the connection and
 * stops the push channels after that commit.
 */
export async function detachedProviderFor(db: Tx, connection: Pick<CalendarConnectionRow, 'provider' | 'grantId'>): Promise<CalendarProvider> {
  const grant = await usableGrant(db, connection);
  const token = await calendarAccessToken(db, grantHolder(grant.id, grant.provider));
  const access: CalendarAccessCall = (call) => call(token);
  return providerForGrant(db, grant, access);
}
