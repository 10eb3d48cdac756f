import type { Database } from '@/db/client';
import type { CredentialRegistry } from '@/server/access/credentials/registry';
import { LastUsedTracker } from '@/server/access/last-used';
import { RateLimits } from './rate-limit';

/** What the kernel works with, made once per process. */
export type KernelDeps = {
  database: Database;
  /** The credentials this API accepts (server/credentials.ts composes them). */
  credentials: CredentialRegistry;
  lastUsed: LastUsedTracker;
  rateLimits: RateLimits;
  /** Check every success body against its schema (tests and development). */
  validateResponses: boolean;
};

export function createKernelDeps(database: Database, credentials: CredentialRegistry): KernelDeps {
  return {
    database,
    credentials,
    lastUsed: new LastUsedTracker(database.pool),
    rateLimits: new RateLimits(database.pool),
    validateResponses: process.env.NODE_ENV !== 'production' || process.env.STEWARD_VALIDATE_RESPONSES === '1',
  };
}
