import { AUDIT_ACTIONS, type AuditAction } from '@/server/audit/actions';

export type AuditQuery = { action?: AuditAction; actorId?: string; targetId?: string; since?: string; until?: string };

const text = (v: string | undefined) => {
  const t = v?.trim();
  return t && t.length <= 200 ? t : undefined;
};
/** A date input's yyyy-mm-dd as the start of that day (UTC); `endOfDay` for the day after, so "until" includes the day. */
const day = (v: string | undefined, endOfDay = false) => {
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const d = new Date(`${v}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime())) return undefined;
  if (endOfDay) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
};

/** The audit page's filters from its URL (what the form sends): unknown or malformed values are left out. */
export function auditQuery(params: Record<string, string | undefined>): AuditQuery {
  const action = (AUDIT_ACTIONS as readonly string[]).includes(params.action ?? '') ? (params.action as AuditAction) : undefined;
  const since = day(params.since);
  let until = day(params.until, true);
  if (since && until && since >= until) until = undefined;
  return { action, actorId: text(params.actor), targetId: text(params.target), since, until };
}

/** The same filters as URL parameters (for "older events" and the export links). */
export function auditParams(params: Record<string, string | undefined>, extra: Record<string, string> = {}) {
  const keep = Object.entries({ action: params.action, actor: params.actor, target: params.target, since: params.since, until: params.until }).filter((e): e is [string, string] => Boolean(e[1]));
  return new URLSearchParams([...keep, ...Object.entries(extra)]).toString();
}
