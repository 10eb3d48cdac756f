import type { CartStatus } from './types';

/** A cart's status in words, as the approvals and reject pages say it. */
export const STATUS: Record<CartStatus, string> = {
  open: 'being prepared by the assistant',
  submitted: 'being handed over',
  pending_approval: 'waiting for your approval',
  time_boxed: 'time-boxed: runs when its window ends unless you act',
  approved: 'approved: queued to be sent',
  executing: 'being sent',
  executed: 'sent',
  cancelled: 'cancelled: nothing was sent',
  rejected: 'rejected: nothing was sent',
  failed: 'failed: could not be sent',
};
