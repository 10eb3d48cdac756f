import { endpoints } from '@/server/endpoints';
import type { AnyEndpoint } from '@/server/http/endpoint';
import { buildOpenApi } from '@/server/http/openapi';

/*
 * What every fuzzed answer is held to, from the OpenAPI document the API publishes: its status is
 * one the operation lists, and an error carries the documented body (the Error shape; the Refusal
 * shape for 401 and 429; SCIM's own under /scim/v2). A status the document does not list is a
 * client that cannot know what it may get: a failure like a 5xx.
 */

type Operation = { responses: Record<string, unknown> };
let doc: { paths: Record<string, Record<string, Operation>> } | null = null;
const documented = () => (doc ??= buildOpenApi(endpoints) as unknown as { paths: Record<string, Record<string, Operation>> });

/** The statuses the document lists for this operation; null for an operation it leaves out (internal). */
export function documentedStatuses(ep: AnyEndpoint): Set<number> | null {
  const op = documented().paths[ep.path]?.[ep.method.toLowerCase()];
  return op ? new Set(Object.keys(op.responses).map(Number)) : null;
}

/**
 * Answers the endpoints give that their definitions do not declare yet (their areas' `errors`
 * lists; a status below 400 there documents another success). Each is a gap in the published
 * document, listed here so the fuzz still fails on any new one; remove an entry once its
 * endpoint declares the status.
 */
const KNOWN_GAPS: Record<string, number[]> = {
  // Spec 1: 200 when the assistant, user or app already existed (idempotent creates).
  'POST /users/{userId}/assistants': [200],
  'POST /users/provision': [200],
  'POST /assistants/{assistantId}/slack-apps': [200],
  // SCIM answers RFC 7644's statuses: 201 for a create, 204 for a delete, 403 for a person outside the verified domains.
  'POST /scim/v2/Users': [201, 403],
  'POST /scim/v2/Groups': [201],
  'DELETE /scim/v2/Users/{id}': [204],
  'DELETE /scim/v2/Groups/{id}': [204],
  // A signed upload URL whose signature does not match.
  'PUT /drive-files/{fileId}/content': [403],
  // A team-scoped contact naming a team the caller cannot see.
  'POST /contacts': [404],
};

/** Why an answer breaks the document, or null when it keeps to it. */
export function answerProblem(ep: AnyEndpoint, res: { status: number; text: string; contentType: string | null }): string | null {
  if (res.status >= 500) return null; // reported as a 5xx by the caller
  const statuses = documentedStatuses(ep);
  const gap = KNOWN_GAPS[`${ep.method} ${ep.path}`]?.includes(res.status);
  if (statuses && !statuses.has(res.status) && !gap && !(res.status >= 300 && res.status < 400 && ep.raw)) {
    return `status ${res.status} is not documented for ${ep.method} ${ep.path} (documented: ${[...statuses].join(', ')})`;
  }
  if (res.status < 400) return null;
  // A raw endpoint's own page (HTML for a browser) is its answer; the kernel's refusals are JSON.
  if (ep.raw && !(res.contentType ?? '').includes('json')) return null;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `a ${res.status} whose body is not JSON (${res.contentType ?? 'no content type'})`;
  }
  return errorShapeProblem(ep, res.status, body);
}

export function errorShapeProblem(ep: Pick<AnyEndpoint, 'path' | 'errorDialect'>, status: number, body: unknown): string | null {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return `a ${status} whose body is not an object`;
  if (ep.errorDialect) {
    const scim = Array.isArray(b.schemas) && b.schemas.includes('urn:ietf:params:scim:api:messages:2.0:Error') && String(b.status) === String(status);
    // A credential refused before SCIM's dialect applies answers the Refusal shape.
    if (scim || ((status === 401 || status === 429) && b.ok === false)) return null;
    return `a ${status} under SCIM without SCIM's error shape: ${JSON.stringify(b).slice(0, 200)}`;
  }
  if (b.ok !== false) return `a ${status} without ok: false`;
  // The Refusal shape (spec 1): {ok:false} for an unknown key, with error and retryAfter when rate limited.
  if (status === 401 || status === 429) return b.error_code !== undefined && typeof b.error_code !== 'string' ? 'a refusal whose error_code is not a string' : null;
  if (b.status !== status) return `a ${status} whose body says status ${String(b.status)}`;
  if (typeof b.error_code !== 'string' || !b.error_code) return `a ${status} without an error_code`;
  if (typeof b.error !== 'string' || !b.error) return `a ${status} without an error message`;
  return null;
}
