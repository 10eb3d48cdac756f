import { z } from 'zod';

/**
 * SCIM answers are raw (application/scim+json, SCIM's own error shape), so the registry
 * describes none of them; bodies are parsed by the SCIM services, which answer in SCIM's terms.
 */
export const ScimResponse = z.unknown();
export const ScimBody = z.unknown();

export const ScimListQuery = z.object({
  filter: z.string().max(1000).optional(),
  startIndex: z.coerce.number().int().min(1).default(1),
  count: z.coerce.number().int().min(0).default(100).transform((n) => Math.min(n, 200)),
});
export const ScimIdParams = z.object({ id: z.string().min(1) });

export const ScimTokenResponse = z.object({ ok: z.literal(true), token: z.string(), tokenCreatedAt: z.string(), endpoint: z.string() });

/** Entra sends booleans as "True"/"False". */
const Bool = z.union([z.boolean(), z.string().transform((s) => s.toLowerCase() === 'true')]);
export const ScimUserBody = z
  .object({
    userName: z.string().trim().toLowerCase().pipe(z.email({ message: 'userName must be an email address' })),
    externalId: z.string().max(200).optional(),
    name: z.object({ givenName: z.string().optional(), familyName: z.string().optional(), formatted: z.string().optional() }).passthrough().optional(),
    displayName: z.string().optional(),
    active: Bool.optional(),
  })
  .passthrough();

/** A SCIM PATCH body (users and groups alike). */
export const PatchOps = z.object({
  Operations: z.array(z.object({ op: z.string(), path: z.string().optional(), value: z.unknown().optional() }).passthrough(), { message: 'must be a list of operations' }),
});

export const GroupBody = z
  .object({ displayName: z.string().trim().min(1), externalId: z.string().optional(), members: z.array(z.object({ value: z.string() }).passthrough()).optional() })
  .passthrough();
/** The members of a group as SCIM sends them: a list of {value} (a user id). */
export const GroupMembers = z.array(z.object({ value: z.string() }).passthrough());
/** What a patch may leave behind: anything else (members: null, a bare string...) is the IdP's mistake, not ours. */
export const PatchedGroup = z.object({ displayName: z.string().trim().min(1).optional(), members: GroupMembers.optional() }).passthrough();
