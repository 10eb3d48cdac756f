import { AppError, databaseRefusal } from '@/server/http/errors';
import { TextReply } from '@/server/http/reply';

export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export const scimError = (status: number, detail: string, scimType?: string) => ({
  schemas: [SCIM_ERROR],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const scimJson = (status: number, body: unknown) => new TextReply(status, { 'Content-Type': 'application/scim+json' }, JSON.stringify(body));

/**
 * Runs a SCIM handler, answering domain errors in SCIM's error format (IdPs read that, not ours).
 * A database refusal (the loser of two concurrent creates hitting a unique index) is one too.
 */
export async function scimHandle(fn: () => Promise<TextReply>): Promise<TextReply> {
  try {
    return await fn();
  } catch (e) {
    const app = e instanceof AppError ? e : databaseRefusal(e);
    if (app) {
      const scimType = app.status === 409 ? 'uniqueness' : app.status === 400 ? 'invalidValue' : undefined;
      return scimJson(app.status, scimError(app.status, app.message, scimType));
    }
    throw e;
  }
}
