import type { Db, Tx } from '@/db/client';
import { verifyingOrganization } from './domains';

/**
 * Whether the organization may speak for this address: it is at a domain the organization
 * verified. An organization admin, key or SCIM token creates or adopts people directly only
 * there; for anyone else the person's own consent is needed (an invitation).
 */
export async function vouchesFor(db: Tx, organizationId: string, accountId: string, email: string): Promise<boolean> {
  return (await verifyingOrganization(db as Db, accountId, email.trim().toLowerCase())) === organizationId;
}
