import { badRequest } from '@/server/http/errors';
import { parseXml } from '@/server/hosted/saml-xml';
import { derToPem } from './certificates';

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const elements = (root: { getElementsByTagNameNS(ns: string, name: string): ArrayLike<Element> }, name: string) =>
  Array.from(root.getElementsByTagNameNS('*', name)) as Element[];

/**
 * Reads what sign-in needs from an IdP's SAML metadata document: its entity id (issuer), the
 * single sign-on and single logout URLs (HTTP-Redirect preferred, as Steward sends requests that way) and the signing certificate.
 */
export function parseIdpMetadata(xml: string): { issuer: string; entryPoint: string; certificate: string; logoutUrl?: string } {
  const doc = parseXml(xml);
  if (!doc) throw badRequest('saml.metadataXml: is not an XML document');
  const entity = elements(doc, 'EntityDescriptor')[0];
  const idp = elements(doc, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw badRequest('saml.metadataXml: has no IdP EntityDescriptor with an IDPSSODescriptor');
  const services = elements(idp, 'SingleSignOnService');
  const sso = services.find((s) => s.getAttribute('Binding') === REDIRECT) ?? services.find((s) => s.getAttribute('Binding') === POST);
  const logouts = elements(idp, 'SingleLogoutService');
  const slo = logouts.find((s) => s.getAttribute('Binding') === REDIRECT) ?? logouts.find((s) => s.getAttribute('Binding') === POST);
  // Every signing key the IdP lists (two while it rotates): responses signed by either verify.
  const signing = elements(idp, 'KeyDescriptor').filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const ders = signing.map((k) => elements(k, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '')).filter((d): d is string => Boolean(d));
  if (!sso?.getAttribute('Location')) throw badRequest('saml.metadataXml: has no SingleSignOnService location');
  if (ders.length === 0) throw badRequest('saml.metadataXml: has no signing certificate');
  const pem = ders.map(derToPem).join('');
  const logoutUrl = slo?.getAttribute('Location');
  return { issuer: entity.getAttribute('entityID') ?? '', entryPoint: sso.getAttribute('Location')!, certificate: pem, ...(logoutUrl ? { logoutUrl } : {}) };
}
