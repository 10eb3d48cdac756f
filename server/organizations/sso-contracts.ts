import { z } from 'zod';
import { BrowserUrl } from '@/server/http/browser-url';
import { parseCertificates } from './certificates';

export const Certificate = z
  .string()
  .trim()
  // PEM (several blocks during a rotation) or bare base64 DER.
  .refine((text) => parseCertificates(text) !== null, 'is not an X.509 certificate');

export const SsoBody = z.object({
  enabled: z.boolean().optional(),
  enforced: z.boolean().optional(),
  provider: z.literal('saml_generic').optional(),
  saml: z
    .object({
      /** The sign-in page hands it to the browser (location.assign): https only, never javascript:. */
      entryPoint: BrowserUrl.optional(),
      /** IdP single-logout URL (not in the spec's body; read from metadata too). Sign-out is sent there. */
      logoutUrl: BrowserUrl.optional(),
      certificate: Certificate.optional(),
      issuer: z.string().max(1000).optional(),
      signatureAlgorithm: z.enum(['sha1', 'sha256', 'sha512']).optional(),
      attributeMapping: z.object({ email: z.string().optional(), firstName: z.string().optional(), lastName: z.string().optional(), groups: z.string().optional() }).optional(),
      groupFilter: z.object({ enabled: z.boolean().optional(), allowedGroups: z.array(z.string().min(1)).optional(), requireAll: z.boolean().optional() }).optional(),
      groupRoleMapping: z.array(z.object({ group: z.string().min(1), role: z.enum(['admin', 'member']) })).optional(),
      allowIdpInitiated: z.boolean().optional(),
      /** The IdP's metadata XML: an alternative to entryPoint + certificate (+ issuer); fields sent beside it win. */
      metadataXml: z.string().max(200_000).optional(),
    })
    .optional(),
  memberSync: z.object({ autoProvision: z.boolean().optional() }).optional(),
});
export const SsoResponse = z.object({ ok: z.literal(true), sso: z.record(z.string(), z.unknown()) });
export const DeletedSsoResponse = z.object({ ok: z.literal(true), sso: z.null() });
