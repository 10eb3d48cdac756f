import { z } from 'zod';

export const DomainResponse = z.object({
  id: z.string(),
  domain: z.string(),
  source: z.enum(['manual', 'sso']),
  verified: z.boolean(),
  autoJoin: z.boolean(),
  txtRecordName: z.string(),
  txtRecordValue: z.string(),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
export const AddDomainBody = z.object({
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .transform((d) => d.replace(/\.$/, ''))
    .pipe(z.string().regex(HOSTNAME, 'must be a domain such as example.org')),
  autoJoin: z.boolean().optional(),
});
export const UpdateDomainBody = z.object({ autoJoin: z.boolean() });
export const DeletedDomainResponse = z.object({ ok: z.literal(true), domain: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });
export const ListDomainsResponse = z.object({ ok: z.literal(true), domains: z.array(DomainResponse) });
export const DomainEnvelope = z.object({ ok: z.literal(true), domain: DomainResponse });
