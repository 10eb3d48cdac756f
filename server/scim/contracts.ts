import { z } from 'zod';

/**
 * SCIM answers are raw (application/scim+json, SCIM's own error shape), so the registry
 * describes none of them; bodies are parsed by the SCIM services, which answer in SCIM's terms.
 */
export const ScimResponse = z.unknown();
export const ScimBody = z.unknown();

/**
 * Query parameters are read by the SCIM services (query.ts), not refused here: a bad
 * `startIndex` must be a SCIM error, and the kernel's validation answers in Steward's shape.
 * A query string gives a string, or a list when the key is repeated; that is all these accept.
 */
const param = (description: string) => z.union([z.string(), z.array(z.string())]).optional().describe(description);
const selection = {
  attributes: param('Comma-separated attributes to return (with id and schemas), e.g. userName,name.givenName'),
  excludedAttributes: param('Comma-separated attributes to leave out, e.g. members'),
};
export const ScimResourceQuery = z.object(selection);
export const ScimListQuery = z.object({
  filter: param('RFC 7644 filter, e.g. userName eq "ada@example.com" (case-insensitive where the attribute is)'),
  startIndex: param('1-based index of the first result (default 1)'),
  count: param('Results per page (default 100, at most 200)'),
  ...selection,
});
export const ScimIdParams = z.object({ id: z.string().min(1) });

export const ScimTokenResponse = z.object({ ok: z.literal(true), token: z.string(), tokenCreatedAt: z.string(), endpoint: z.string() });

/** Entra sends booleans as "True"/"False". */
const Bool = z.union([z.boolean(), z.string().regex(/^(true|false)$/i, 'must be true or false').transform((s) => s.toLowerCase() === 'true')]);
export const ScimUserBody = z
  .object({
    userName: z.string().trim().toLowerCase().pipe(z.email({ message: 'userName must be an email address' })),
    externalId: z.string().max(200).optional(),
    name: z.object({ givenName: z.string().optional(), familyName: z.string().optional(), formatted: z.string().optional() }).passthrough().optional(),
    displayName: z.string().optional(),
    active: Bool.optional(),
  })
  .passthrough();

/** A SCIM PATCH body (users and groups alike); patch.ts reads each operation. */
export const PatchOps = z.object({
  Operations: z.array(z.object({ op: z.string(), path: z.string().optional(), value: z.unknown().optional() }).passthrough(), { message: 'must be a list of operations' }),
});

export const GroupBody = z
  .object({ displayName: z.string().trim().min(1), externalId: z.string().optional(), members: z.array(z.object({ value: z.string() }).passthrough()).optional() })
  .passthrough();
/** The members of a group as SCIM sends them: a list of {value} (a user id). */
export const GroupMembers = z.array(z.object({ value: z.string() }).passthrough());
/** What a patch may leave behind: anything else (members: null, a bare string...) is the IdP's mistake, not ours. */
export const PatchedGroup = z.object({ displayName: z.string().trim().min(1), members: GroupMembers.optional() }).passthrough();
