import { z } from 'zod';
import type { OrganizationRow } from '@/db/schema';
import { BrowserUrl } from '@/server/http/browser-url';

/** The stored SSO configuration as sign-in reads it; absent fields take the documented defaults. */
const StoredSso = z.object({
  enabled: z.boolean().default(false),
  enforced: z.boolean().default(false),
  saml: z
    .object({
      // A URL stored before they were checked (javascript:, data:) reads as absent: SSO is then unusable, never a script.
      entryPoint: BrowserUrl.nullable().default(null).catch(null),
      logoutUrl: BrowserUrl.nullable().default(null).catch(null),
      certificate: z.string().nullable().default(null),
      issuer: z.string().nullable().default(null),
      signatureAlgorithm: z.enum(['sha1', 'sha256', 'sha512']).default('sha256'),
      allowIdpInitiated: z.boolean().default(false),
      spEntityId: z.string().nullable().default(null),
      acsUrl: z.string().nullable().default(null),
      sloUrl: z.string().nullable().default(null),
      attributeMapping: z
        .object({
          email: z.string().default('email'),
          firstName: z.string().default('firstName'),
          lastName: z.string().default('lastName'),
          groups: z.string().default('groups'),
        })
        .prefault({}),
      groupFilter: z.object({ enabled: z.boolean().default(false), allowedGroups: z.array(z.string()).default([]), requireAll: z.boolean().default(false) }).prefault({}),
      groupRoleMapping: z.array(z.object({ group: z.string(), role: z.enum(['admin', 'member']) })).default([]),
    })
    .prefault({}),
  memberSync: z.object({ autoProvision: z.boolean().default(true) }).prefault({}),
});

export type SsoConfig = z.infer<typeof StoredSso>;

export function ssoConfigOf(org: Pick<OrganizationRow, 'sso'>): SsoConfig | null {
  if (!org.sso) return null;
  const parsed = StoredSso.safeParse(org.sso);
  return parsed.success ? parsed.data : null;
}

/** SSO sign-in works once it is enabled with an IdP entry point and certificate. */
export const ssoUsable = (c: SsoConfig | null): c is SsoConfig & { saml: { entryPoint: string; certificate: string } } =>
  Boolean(c?.enabled && c.saml.entryPoint && c.saml.certificate);
