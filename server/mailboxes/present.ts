import type { MailboxRow } from '@/db/schema';
import { platformOf } from './store';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A mailbox as the API shows it: never a token, nor the clientState's hash. */
export function presentMailbox(m: MailboxRow) {
  return {
    id: m.id,
    provider: m.provider,
    platform: platformOf(m.provider),
    address: m.address,
    status: m.authError ? ('auth_error' as const) : ('connected' as const),
    authError: m.authError,
    authErrorReason: m.authErrorReason,
    scopes: m.scopes ? m.scopes.split(/\s+/).filter(Boolean) : [],
    notifications: m.provider === 'outlook' ? Boolean(m.subscriptionId && m.subscriptionExpiresAt && m.subscriptionExpiresAt > new Date()) : null,
    lastSyncedAt: iso(m.lastSyncedAt),
    lastSyncError: m.lastSyncError,
    connectedAt: m.connectedAt.toISOString(),
  };
}
