import { AppError } from '@/server/http/errors';
import { TextReply } from '@/server/http/kernel';

export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export const scimError = (status: number, detail: string, scimType?: string) => ({
  schemas: [SCIM_ERROR],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const scimJson = (status: number, body: unknown) => new TextReply(status, { 'Content-Type': 'application/scim+json' }, JSON.stringify(body));

/** Runs a SCIM handler, answering domain errors in SCIM's error format (IdPs read that, not ours). */
export async function scimHandle(fn: () => Promise<TextReply>): Promise<TextReply> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) {
      const scimType = e.status === 409 ? 'uniqueness' : e.status === 400 ? 'invalidValue' : undefined;
      return scimJson(e.status, scimError(e.status, e.message, scimType));
    }
    throw e;
  }
}
