import { z } from 'zod';
import { AuditEventsQuery } from '@/server/audit/contracts';
import { listAuditEvents } from '@/server/audit/query';
import { exportAuditEvents } from '@/server/console/audit-export';
import { router } from '../init';
import { consoleProcedure } from './console-procedures';

const q = AuditEventsQuery.shape;
/** The API's filters (GET /audit-events): action, actor, target, a time window. */
const Filters = z
  .object({ action: q.action, actorId: q.actorId, targetId: q.targetId, since: q.since, until: q.until })
  .refine((f) => !f.since || !f.until || Date.parse(f.since) < Date.parse(f.until), { message: 'since must be before until', path: ['since'] });

/** The account's audit log (GET /audit-events' query, as an account-wide caller): a page, or every match for an export. */
export const consoleAuditRouter = router({
  list: consoleProcedure
    .input(z.object({ filters: Filters.prefault({}), cursor: q.cursor, limit: z.number().int().min(1).max(100).default(50) }).prefault({}))
    .query(({ ctx, input }) => listAuditEvents(ctx.db, { accountId: ctx.actor.accountId, organizationId: null }, { ...input.filters, cursor: input.cursor, limit: input.limit })),
  export: consoleProcedure.input(Filters.prefault({})).query(({ ctx, input }) => exportAuditEvents(ctx.db, ctx.actor.accountId, ctx.actor, input)),
});
