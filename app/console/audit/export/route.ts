import { TRPCError } from '@trpc/server';
import { sharedDatabase } from '@/db/client';
import { auditCsv } from '@/server/console/audit-export';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { auditQuery } from '../filters';

export const dynamic = 'force-dynamic';

const STATUS: Partial<Record<TRPCError['code'], number>> = { UNAUTHORIZED: 401, NOT_FOUND: 404, FORBIDDEN: 403, BAD_REQUEST: 400 };

/**
 * GET /console/audit/export?format=csv|json&…filters: every event that matches (the newest
 * EXPORT_MAX_EVENTS), for console members of the account, through the same procedure as the page.
 * The file is named for the account and the day; `X-Export-Truncated: true` says more matched.
 */
export async function GET(req: Request) {
  const url = new URL(req.url);
  const format = url.searchParams.get('format') === 'json' ? 'json' : 'csv';
  try {
    const ctx = await portalContext(sharedDatabase().db, req.headers);
    const { events, truncated } = await appRouter.createCaller(ctx).console.audit.export(auditQuery(Object.fromEntries(url.searchParams)));
    const name = `audit-${ctx.account.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'account'}-${new Date().toISOString().slice(0, 10)}.${format}`;
    const body = format === 'json' ? JSON.stringify({ events, truncated }, null, 2) : auditCsv(events);
    return new Response(body, {
      headers: {
        'Content-Type': format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${name}"`,
        'Cache-Control': 'no-store',
        'X-Export-Truncated': String(truncated),
      },
    });
  } catch (e) {
    const status = e instanceof TRPCError ? (STATUS[e.code] ?? 500) : (e as { status?: number }).status === 404 ? 404 : 500;
    if (status === 500) throw e;
    return new Response(status === 401 ? 'Sign in first' : 'Not found', { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}
