import { z } from 'zod';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { isKnownScope, UNKNOWN_SCOPE } from './scopes';

export const MeResponse = z.object({
  ok: z.literal(true),
  accountId: z.string(),
  email: z.string().nullable(),
  orgId: z.string().nullable(),
  userId: z.string().nullable(),
  scopes: z.array(z.string()),
});

export const ApiKeyResponse = z.object({
  id: z.string(),
  account: z.string(),
  organization: z.string().nullable(),
  user: z.string().nullable(),
  label: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'revoked']),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  key: z.string().optional(),
});

export const ListApiKeysQuery = PageQuery.extend({
  resource: z.enum(['organization']).optional(),
  scope: z.string().optional(),
});

export const ListApiKeysResponse = z.object({ ok: z.literal(true), apiKeys: z.array(ApiKeyResponse.omit({ key: true })), ...PageFields });

export const CreateApiKeyBody = z.object({
  label: z.string().trim().min(1, 'is required').max(200),
  userId: z.string().min(1).optional(),
  expiresAt: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
    .refine((s) => new Date(s).getTime() > Date.now(), 'must be in the future')
    .optional(),
  /** Omitted: the creating key's scopes (none for an unrestricted creator). See server/access/scopes.ts. */
  scopes: z
    .array(z.string().refine(isKnownScope, UNKNOWN_SCOPE))
    .max(50)
    .transform((s) => [...new Set(s)])
    .optional(),
});

export const ApiKeyEnvelope = z.object({ ok: z.literal(true), apiKey: ApiKeyResponse });
export const KeyIdParams = z.object({ keyId: z.string().min(1) });
export const OkResponse = z.object({ ok: z.literal(true) });
