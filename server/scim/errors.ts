import { AppError, badRequest, databaseRefusal } from '@/server/http/errors';
import type { PathDialect } from '@/server/http/error-dialects';
import { TextReply } from '@/server/http/reply';

export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 `scimType` values this server answers with. */
export type ScimType = 'invalidFilter' | 'invalidPath' | 'invalidSyntax' | 'invalidValue' | 'mutability' | 'noTarget' | 'uniqueness';

export const scimError = (status: number, detail: string, scimType?: string) => ({
  schemas: [SCIM_ERROR],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const scimJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new TextReply(status, { 'Content-Type': 'application/scim+json', ...headers }, JSON.stringify(body));

/** A 400 with its SCIM error type (the kernel never sees it: scimHandle answers it). */
export const scimBadRequest = (scimType: ScimType, detail: string) => badRequest(detail, { scimType });

/**
 * Runs a SCIM handler, answering domain errors in SCIM's error format (IdPs read that, not ours).
 * A database refusal (the loser of two concurrent creates hitting a unique index) is one too.
 * A 400 without its own type is `invalidValue`, a 409 `uniqueness`.
 */
export async function scimHandle(fn: () => Promise<TextReply>): Promise<TextReply> {
  try {
    return await fn();
  } catch (e) {
    const app = e instanceof AppError ? e : databaseRefusal(e);
    if (app) {
      const own = typeof app.extra.scimType === 'string' ? app.extra.scimType : undefined;
      const scimType = own ?? (app.status === 409 ? 'uniqueness' : app.status === 400 ? 'invalidValue' : undefined);
      return scimJson(app.status, scimError(app.status, app.message, scimType));
    }
    throw e;
  }
}

/**
 * Errors the kernel answers itself under /scim/v2 (unknown path, wrong method, malformed JSON,
 * rate limits) in SCIM's shape too; their headers (Allow, Retry-After) are kept.
 */
export const scimErrorDialect: PathDialect = {
  prefix: '/scim/v2/',
  format: ({ status, message, headers }) => scimJson(status, scimError(status, message, status === 400 ? 'invalidSyntax' : undefined), headers),
};
