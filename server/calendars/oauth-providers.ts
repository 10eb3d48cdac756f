import type { Tx } from '@/db/client';
import type { CalendarConnectionRow, CalendarGrantRow } from '@/db/schema';
import { grantById } from './grants';
import { googleProvider } from './google/provider';
import { graphProvider } from './graph/provider';
import { CalendarUnreachable, type CalendarProvider } from './provider';

/*
 * The port of a Google or Microsoft calendar connection: the provider adapter over the grant the
 * connection points at. (CalDAV connections get theirs from their own URL and password.)
 */

export function providerForGrant(db: Tx, grant: Pick<CalendarGrantRow, 'id' | 'provider'>): CalendarProvider {
  return grant.provider === 'google' ? googleProvider(db, grant) : graphProvider(db, grant);
}

/** The adapter of an OAuth connection; CalendarUnreachable when its grant is gone or no longer honoured. */
export async function oauthProviderFor(db: Tx, connection: Pick<CalendarConnectionRow, 'provider' | 'grantId'>): Promise<CalendarProvider> {
  if (connection.provider === 'caldav' || !connection.grantId) throw new Error(`not an OAuth calendar connection: ${connection.provider}`);
  const grant = await grantById(db, connection.grantId);
  if (!grant) throw new CalendarUnreachable('The calendar’s authorization was removed: connect it again');
  if (grant.authError) throw new CalendarUnreachable(`The calendar must be connected again: ${grant.authErrorReason ?? 'the provider refuses its tokens'}`);
  return providerForGrant(db, grant);
}
