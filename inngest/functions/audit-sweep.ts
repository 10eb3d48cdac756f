import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { dropExpired, emitPending } from '@/server/audit/sweep';
import { emitWebhookEvent } from '@/server/webhooks/emit';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * Every minute: audit events recorded where no webhook sink was registered (the admin CLI) are
 * delivered as `audit.event`, and events older than STEWARD_AUDIT_RETENTION_DAYS (365) are dropped.
 */
export const auditSweep = inngest.createFunction({ id: 'audit-sweep', retries: 2, triggers: [cron('* * * * *'), events.auditSweepDue] }, async ({ step }) => {
  const emitted = await step.run('emit', () => emitPending(db(), (tx, event) => emitWebhookEvent(tx, event.accountId, 'audit.event', event)));
  const dropped = await step.run('retention', () => dropExpired(db()));
  return { emitted, dropped };
});
