import type { z } from 'zod';
import type { ScimListQuery, ScimResourceQuery } from './contracts';
import { scimBadRequest } from './errors';
import type { Selection } from './projection';

/** The largest page a list answers (ServiceProviderConfig.filter.maxResults). */
export const MAX_RESULTS = 200;
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export type ListQuery = Selection & { filter?: string; startIndex: number; count: number };

const once = (name: string, v: string | string[] | undefined) => {
  if (Array.isArray(v)) throw scimBadRequest('invalidValue', `${name}: give it once`);
  return v;
};
/** `a,b` and `a&…&b` alike. */
const names = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

function integer(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined || v.trim() === '') return fallback;
  if (!/^\s*-?\d{1,9}\s*$/.test(v)) throw scimBadRequest('invalidValue', `${name}: must be an integer`);
  return Number(v);
}

export const readSelection = (q: z.infer<typeof ScimResourceQuery>): Selection => ({ attributes: names(q.attributes), excludedAttributes: names(q.excludedAttributes) });

/** RFC 7644 §3.4.2.4: a startIndex below 1 is 1, a negative count is 0; the page is at most MAX_RESULTS. */
export function readListQuery(q: z.infer<typeof ScimListQuery>): ListQuery {
  const filter = once('filter', q.filter);
  if (filter !== undefined && filter.length > 1000) throw scimBadRequest('invalidFilter', 'filter: at most 1000 characters');
  return {
    ...readSelection(q),
    filter: filter?.trim() ? filter : undefined,
    startIndex: Math.max(1, integer('startIndex', once('startIndex', q.startIndex), 1)),
    count: Math.min(MAX_RESULTS, Math.max(0, integer('count', once('count', q.count), 100))),
  };
}

/** One page of already filtered resources, as a ListResponse. */
export function listResponse<T>(resources: T[], q: ListQuery) {
  const page = resources.slice(q.startIndex - 1, q.startIndex - 1 + q.count);
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: q.startIndex, itemsPerPage: page.length, Resources: page };
}
